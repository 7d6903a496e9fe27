import { statisticsOf, unauthenticated, type DatabaseStatistics, type UsageFigures, type Value } from '@entia/domain';
import type { EntitiesDeps } from './deps';
import { visible } from './read';
import type { Tenant } from './tenant';

/** How long a database's figures are kept before they are counted again: the most they lag behind, on a database counted quickly. */
export const STATISTICS_SECONDS = 60;

/**
 * Figures that took long to count are kept this many times as long as counting took (when that is
 * more than `STATISTICS_SECONDS`): counting then takes at most a tenth of the database's time, however
 * often its members look.
 */
const KEEP_PER_COUNTING_TIME = 10;

/** Where figures are kept between counts, shared by every API process (Redis: `ExpiringCache`). */
export interface FiguresCache {
  get(db: string): Promise<UsageFigures | undefined>;
  set(db: string, figures: UsageFigures, ttlSeconds: number): Promise<void>;
}

export interface StatisticsLimits {
  /** How long a request waits for figures being counted (the query time limit, MONGODB_TIMEOUT_MS). */
  waitMs: number;
  /** How long counting may take (each count's `maxTimeMS`): it goes on after the request stopped waiting. */
  countMs: number;
}

/** The figures are being counted and were not ready within the request's wait: 503, they will be kept when done. */
export class FiguresNotReady extends Error {
  override readonly name = 'FiguresNotReady';

  constructor() {
    super('The database\'s figures are being counted; try again in a moment.');
  }
}

/**
 * `GET /api/{db}`: a database's statistics in Entu's shape, for its members.
 * Counting reads whole collections, so the figures are counted at most once per database while
 * they are kept (the cache, shared by the API processes), and requests of one process arriving
 * while they are counted wait for that count rather than starting their own. A count longer than
 * a request may wait finishes anyway and is kept: the next request finds it.
 */
export class DatabaseStatisticsReader {
  private readonly counting = new Map<string, Promise<UsageFigures>>();

  constructor(
    private readonly deps: Pick<EntitiesDeps, 'store' | 'schemas' | 'logger'>,
    private readonly cache: FiguresCache,
    private readonly limits: StatisticsLimits,
  ) {}

  async of(tenant: Tenant): Promise<DatabaseStatistics> {
    // Members only: a token of another database was refused already (tenancy), so this is anonymity.
    if (tenant.caller.personId === undefined) throw unauthenticated('Sign in: a database\'s statistics are for its members.');
    const [figures, names] = await Promise.all([this.figures(tenant), this.organization(tenant)]);
    return statisticsOf(figures, names);
  }

  private async figures(tenant: Tenant): Promise<UsageFigures> {
    const kept = await this.cache.get(tenant.name);
    if (kept) return kept;
    let counting = this.counting.get(tenant.name);
    if (!counting) {
      counting = this.count(tenant).finally(() => this.counting.delete(tenant.name));
      this.counting.set(tenant.name, counting);
      // Nobody may be waiting when it fails (they stopped waiting): said here, never an unhandled rejection.
      counting.catch((err: unknown) => this.deps.logger.error({ err, db: tenant.name }, 'counting a database\'s statistics failed'));
    }
    return waitAtMost(counting, this.limits.waitMs);
  }

  private async count(tenant: Tenant): Promise<UsageFigures> {
    const started = Date.now();
    const schema = await this.deps.schemas.of(tenant.name, tenant.record);
    const fileProperties = [...schema.propertyTypes(undefined)].filter(([, types]) => types.has('file')).map(([name]) => name);
    // Deleted values and entities are counted from history, which includes the rows still waiting
    // in outboxes: recorded first, as every reader of history does (history.ts).
    for await (const rows of this.deps.store.entities(tenant.name).waitingHistory(this.limits.countMs)) await this.deps.store.history(tenant.name).record(rows);
    const usage = this.deps.store.usage(tenant.name, this.limits.countMs);
    const [entities, deletedEntities, values, deletedValues, fileBytes, sizeBytes] = await Promise.all([
      usage.entities(),
      usage.deletedEntities(),
      usage.values(),
      usage.deletedValues(),
      usage.fileBytes(fileProperties),
      usage.size(),
    ]);
    const figures = { entities, deletedEntities, values, deletedValues, fileBytes, sizeBytes, at: new Date(started).toISOString() };
    const tookSeconds = (Date.now() - started) / 1000;
    await this.cache.set(tenant.name, figures, Math.max(STATISTICS_SECONDS, tookSeconds * KEEP_PER_COUNTING_TIME));
    return figures;
  }

  /** The database entity's names, as the caller may read them: per call, since it depends on the caller. */
  private async organization(tenant: Tenant): Promise<readonly Value[]> {
    const found = await tenant.entities.get(tenant.record.databaseEntity);
    return visible(found, tenant.caller, false) ? (found.entity.properties.name ?? []) : [];
  }
}

/** `work`'s result, or `FiguresNotReady` when it takes longer than `ms` (`work` goes on). */
function waitAtMost<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FiguresNotReady()), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
