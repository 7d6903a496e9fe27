import { API_KEY_INDEXES, ENTITY_INDEXES, HISTORY_INDEXES, IndexBuildError, WEBHOOK_DELIVERY_INDEXES, type Store } from '@entia/store';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface IndexMetrics {
  /** Index definitions known not to be built, over the control database and every tenant. */
  missing: Gauge;
  /** Index builds (or index listings) that failed. */
  failures: Counter;
}

export function indexMetrics(registry: Registry): IndexMetrics {
  return {
    missing: new Gauge({
      name: 'entia_index_definitions_missing',
      help: 'Index definitions not built in the control database and the tenant databases (retried with backoff; the log names them); NaN until all were looked at.',
      registers: [registry],
    }),
    failures: new Counter({
      name: 'entia_index_build_failures_total',
      help: 'Index builds, or index listings of a database, that failed.',
      registers: [registry],
    }),
  };
}

export interface IndexKeeperOptions {
  firstRetryMs?: number;
  maxRetryMs?: number;
}

export interface IndexKeeper {
  /** Resolves once every definition is built in every database (or the keeper was stopped). */
  done: Promise<void>;
  /** Stops retrying (at shutdown); a build already sent to the server finishes there. */
  stop(): void;
}

const CONTROL = Symbol('control database');
type Target = string | typeof CONTROL;

/**
 * Builds the index definitions of the code (`@entia/store`'s lists) that the control database and
 * each registered tenant database lack, without holding up the start: the databases that failed
 * are retried with exponential backoff until none is left. Each failure is logged at `error` with
 * its database and index, and counted in `entia_index_definitions_missing`, so an index that a new
 * version adds, and cannot be built, is seen rather than silently missing.
 */
export function keepIndexes(store: Store, logger: Logger, metrics: IndexMetrics, options: IndexKeeperOptions = {}): IndexKeeper {
  const { firstRetryMs = 1000, maxRetryMs = 60_000 } = options;
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  // Unknown (NaN, not 0) until every database has been looked at once.
  metrics.missing.set(NaN);
  const missing = new Map<Target, number>();
  let listed = false;
  let pending: Target[] = [CONTROL];

  /** Ensures one database; records how many of its definitions are still missing. */
  async function ensure(target: Target): Promise<boolean> {
    const definitions = target === CONTROL ? API_KEY_INDEXES : [...ENTITY_INDEXES, ...HISTORY_INDEXES, ...WEBHOOK_DELIVERY_INDEXES];
    const database = target === CONTROL ? store.controlDbName : target;
    try {
      const built = await (target === CONTROL ? store.registry.ensureIndexes() : store.ensureTenantIndexes(target));
      missing.set(target, 0);
      if (built.length > 0) logger.info({ database, indexes: built }, 'indexes built');
      return true;
    } catch (error) {
      if (stopped) return true; // the connections are closing under it: not a failure of the index
      const failed = error instanceof IndexBuildError ? error.failures.length : definitions.length;
      missing.set(target, failed);
      metrics.failures.inc(failed);
      logger.error({ err: error, database }, 'indexes not built; retrying with backoff');
      return false;
    }
  }

  async function pass(): Promise<void> {
    const failed: Target[] = [];
    for (const target of pending) if (!(await ensure(target))) failed.push(target);
    if (!listed && !stopped) {
      try {
        const databases = await store.registry.allDatabases();
        listed = true;
        for (const { _id } of databases) if (!(await ensure(_id))) failed.push(_id);
      } catch (error) {
        if (!stopped) {
          metrics.failures.inc();
          logger.error({ err: error, database: store.controlDbName }, 'could not list the databases to index; retrying with backoff');
        }
      }
    }
    pending = failed;
    if (listed) metrics.missing.set([...missing.values()].reduce((sum, n) => sum + n, 0));
  }

  const done = (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      if (attempt > 0) await sleep(Math.min(maxRetryMs, firstRetryMs * 2 ** (attempt - 1)));
      if (stopped) return;
      await pass();
      if (pending.length === 0 && listed) return;
    }
  })();

  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
