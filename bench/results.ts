import type { BenchOptions } from './options';
import type { EngineExplain } from './explain';
import type { Latency } from './measure';
import type { IndexSpec, MongoPlan } from './plan';
import type { BenchQuery } from './queries';
import type { SeedReport, World } from './seed';

/** The JSON a benchmark run writes beside its Markdown report. */
export interface QueryResult {
  id: string;
  kind: BenchQuery['kind'];
  title: string;
  query: string;
  compiled: { filter: unknown; sort: unknown; projection: unknown; skip: number; limit: number };
  count: number;
  /** The same filter counted by the analysis' client-side matcher (must equal `count`). */
  analysedCount: number;
  returned: number;
  store: Latency;
  api?: Latency;
  mongo: MongoPlan;
  engine: { find: EngineExplain; count: EngineExplain };
  /**
   * The next page by cursor (`after` = this page's `next`, `count=none`: one `find`, no count),
   * when there is one: its filter (`compilePage`), what MongoDB would use for it, and whether that
   * starts at the cursor (`keyset`).
   */
  cursor?: { filter: unknown; returned: number; store: Latency; mongo: MongoPlan; keyset: { served: boolean; text: string }; engine: EngineExplain };
  notes: string[];
}

export interface Machine {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  freeMemoryGiB: number;
  node: string;
  os: string;
  engine: string;
  serverVersion: string;
  /** 1/5/15-minute load averages at the start and the end of the run (the stack may be shared). */
  loadAverage: { start: number[]; end?: number[] };
}

export interface BenchResult {
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  options: Omit<BenchOptions, 'mongodbUrl'> & { mongodb: string };
  world: World;
  collection: { documents: number; indexes: IndexSpec[] };
  seeding?: SeedReport;
  reused: boolean;
  caller: { name: string; tags: string[] };
  queries: QueryResult[];
  dropped: boolean;
}
