import type { Generations, JobProducer } from '@entia/jobs';
import type { Store } from '@entia/store';
import type { SchemaCache } from './schema';

/** What keeping derived data fresh talks to; the API and the worker both have it. */
export interface DeriveDeps {
  store: Store;
  jobs: JobProducer;
  generations: Generations;
  schemas: SchemaCache;
}
