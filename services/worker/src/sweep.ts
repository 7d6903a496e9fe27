import { publishIntended, settleEntity, type SettleDeps } from '@entia/entities';
import type { DatabaseRecords } from '@entia/store';
import { runPeriodically } from './periodic';

// Marks read per round; a backlog larger than this takes several rounds.
const BATCH = 200;

export interface SweepDeps extends SettleDeps {
  records: DatabaseRecords;
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
 * Runs `sweepOnce` every `intervalMs` (and once at start) until stopped, and publishes the
 * creations whose request died before it could (`publishIntended`); rounds never overlap.
 */
export function startSweeper(deps: SweepDeps, intervalMs: number): { stop(): Promise<void> } {
  const round = async () => {
    await sweepOnce(deps, intervalMs);
    await publishIntended(deps, intervalMs);
  };
  return runPeriodically(round, intervalMs, (err) => deps.logger.error({ err }, 'sweep failed; trying again next round'));
}
