import type { Generations, JobProducer } from '@entia/jobs';
import type { EntityWriter, Store } from '@entia/store';
import type { SchemaCache } from './schema';

/** Where failures that must not fail the caller are reported (a pino logger fits). */
export interface FailureLog {
  error(details: object, message: string): void;
}

/** What keeping derived data fresh talks to; the API and the worker both have it. */
export interface DeriveDeps {
  store: Store;
  writer: EntityWriter;
  jobs: JobProducer;
  generations: Generations;
  schemas: SchemaCache;
  /** Removes a stored object; removing an absent one succeeds. */
  objects: { remove(key: string): Promise<void> };
  logger: FailureLog;
}
