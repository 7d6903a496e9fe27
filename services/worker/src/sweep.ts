import { publishIntended, settleEntity, type SettleDeps } from '@entia/entities';
import type { DatabaseRecords } from '@entia/store';
import { runPeriodically } from './periodic';

// Marks (and outboxes of each database) read per round; a backlog larger than this takes several rounds.
const BATCH = 200;

/**
 * Every this many sweep rounds (the first included), the sweep also reads every database's
 * unsettled outboxes: the work whose settle job was lost with Redis (wiped, failed over) after it
 * was queued. A job that could not be queued marked its entity, and is found by the next round.
 */
export const OUTBOX_SCAN_EVERY = 3;

export interface SweepDeps extends SettleDeps {
  records: DatabaseRecords;
  logger: SettleDeps['logger'] & { info(details: object, message: string): void };
}

/** What the last scan of outboxes left unsettled: how many entities, and since when the oldest waits. */
export interface OutboxBacklog {
  count: number;
  oldest: Date | undefined;
}

/** A scan of outboxes: how many it delivered, and what it left. */
interface OutboxScan {
  settled: number;
  left: OutboxBacklog;
}

/**
 * Settles the entities whose pending marks are older than `olderThanMs`: the work a lost job, a
 * wiped Redis or exhausted retries left (queue jobs are only the fast path). One entity failing
 * (its dependency still down) does not stop the others; its marks stay for the next round.
 * Resolves to the number of entities settled.
 */
export async function sweepOnce(deps: SweepDeps, olderThanMs: number): Promise<number> {
  const marks = await deps.store.registry.pending.due(new Date(Date.now() - olderThanMs), BATCH);
  const entities = new Map(marks.map((mark) => [`${mark.db}/${mark.entity}`, mark]));
  const pending = deps.store.registry.pending;
  let settled = 0;
  for (const mark of entities.values()) {
    try {
      const record = await deps.records.get(mark.db);
      // A database that is gone has nothing left to settle.
      if (record) await settleEntity(deps, mark.db, record, mark.entity, mark.depth);
      else await pending.clear(await pending.of(mark.db, mark.entity));
      settled++;
    } catch (err) {
      deps.logger.error({ err, db: mark.db, entity: mark.entity }, 'could not settle a pending entity; a later sweep tries again');
      await pending.postpone(mark.db, mark.entity).catch(() => undefined);
    }
  }
  return settled;
}

/**
 * Delivers the outboxes that have waited longer than `olderThanMs` in every database (oldest
 * first, one indexed find per database): an entity's own writes mark it there, not in the
 * control database. Resolves to what is left unsettled (an entity that failed stays marked by its
 * outbox, and the next scan tries again).
 */
export async function sweepOutboxes(deps: SweepDeps, olderThanMs: number): Promise<OutboxScan> {
  const before = new Date(Date.now() - olderThanMs);
  const left: Date[] = [];
  let settled = 0;
  for (const record of await deps.store.registry.allDatabases()) {
    // One being deleted is no longer served, nor settled.
    if (record.deleting) continue;
    const db = record._id;
    const unsettled = await deps.store
      .entities(db)
      .unsettled(before, BATCH)
      .catch((err: unknown) => {
        deps.logger.error({ err, db }, 'could not read the unsettled outboxes of a database; the next scan tries again');
        return [];
      });
    for (const { id, since } of unsettled) {
      try {
        await settleEntity(deps, db, record, id, 0, { own: true });
        settled++;
      } catch (err) {
        deps.logger.error({ err, db, entity: id }, 'could not deliver an outbox; a later sweep tries again');
        left.push(since);
      }
    }
  }
  const oldest = left.length > 0 ? new Date(Math.min(...left.map((since) => since.getTime()))) : undefined;
  return { settled, left: { count: left.length, oldest } };
}

/**
 * Runs `sweepOnce` every `intervalMs` (and once at start), `sweepOutboxes` every
 * `OUTBOX_SCAN_EVERY` rounds (telling `onBacklog` what it left), and publishes the creations whose
 * request died before it could (`publishIntended`); rounds never overlap. A round that settled
 * anything says so at info: work that jobs had left.
 */
export function startSweeper(deps: SweepDeps, intervalMs: number, onBacklog: (backlog: OutboxBacklog) => void = () => undefined): { stop(): Promise<void> } {
  let rounds = 0;
  const round = async () => {
    const marked = await sweepOnce(deps, intervalMs);
    let outboxes = 0;
    if (rounds++ % OUTBOX_SCAN_EVERY === 0) {
      const scan = await sweepOutboxes(deps, intervalMs);
      outboxes = scan.settled;
      onBacklog(scan.left);
    }
    if (marked + outboxes > 0) deps.logger.info({ marked, outboxes }, 'the sweep settled what jobs had left');
    await publishIntended(deps, intervalMs);
  };
  return runPeriodically(round, intervalMs, (err) => deps.logger.error({ err }, 'sweep failed; trying again next round'));
}
