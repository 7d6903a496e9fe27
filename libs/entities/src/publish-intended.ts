import type { SettleDeps } from './deps';

// Intents read per database and round; a backlog larger than this takes several rounds.
const BATCH = 200;
/**
 * After this long without its entity, a creation's insert is taken as failed and its intent
 * forgotten: longer than any insert may take (its query time limit and the writer's confirmation).
 */
export const FORGET_AFTER_MS = 60_000;

/**
 * Publishes the creations whose request did not (its process died between the insert and the
 * publication): every intent older than `olderThanMs` whose entity was stored — it
 * exists, or was deleted since (its history says so) — is published; one whose entity never came
 * to be is forgotten after `FORGET_AFTER_MS`. Resolves to the number published.
 */
export async function publishIntended(deps: Pick<SettleDeps, 'store' | 'changes'>, olderThanMs: number): Promise<number> {
  let published = 0;
  for (const db of await deps.changes.intendingDatabases()) {
    const forgotten: string[] = [];
    for (const record of await deps.changes.intended(db, olderThanMs, BATCH)) {
      const stored = (await deps.store.entities(db).stored(record.entity)) !== undefined || (await deps.store.history(db).lastOwners(record.entity)) !== undefined;
      if (stored) {
        await deps.changes.publish(db, record);
        published++;
      } else if (Date.now() - Date.parse(record.at) > FORGET_AFTER_MS) {
        forgotten.push(record.key);
      }
    }
    await deps.changes.forget(db, forgotten);
  }
  return published;
}
