import { mayReadGone, notFound, parseInstant, presentEntity, propertiesAt, type Change } from '@entia/domain';
import { historyRowsIn, type Stored } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { visible } from './read';
import type { Tenant } from './tenant';

/**
 * An entity's history is the `history` collection and the rows still waiting in its outbox: a
 * write commits its rows with the change, and the worker records them. A reader records the
 * waiting ones first (recording a row twice stores it once), so a change is in history the
 * moment the write is answered, worker or not. Resolves with the document as stored (a deleted
 * entity's tombstone included).
 */
async function recordWaiting(deps: Pick<EntitiesDeps, 'store'>, tenant: Tenant, id: string): Promise<Stored | undefined> {
  const stored = await tenant.entities.stored(id);
  await deps.store.history(tenant.name).record(historyRowsIn(stored?.outbox ?? []));
  return stored;
}

/**
 * Whether the caller may read the history of entity `id`: while it exists, whoever may
 * read it now; once deleted, its last owners, until the retention removes it. Else 404, as for
 * any entity the caller cannot read.
 */
async function assertHistoryReadable(deps: Pick<EntitiesDeps, 'store'>, tenant: Tenant, id: string): Promise<void> {
  const stored = await recordWaiting(deps, tenant, id);
  const found = stored?.deleted ? undefined : stored;
  if (visible(found, tenant.caller, false)) return;
  if (found === undefined) {
    const owners = await deps.store.history(tenant.name).lastOwners(id);
    if (owners && mayReadGone(owners, tenant.caller)) return;
  }
  throw notFound(`No entity ${id}.`);
}

/** GET /{db}/entity/{id}/history: its changes, newest first, and how many there are. */
export async function entityHistory(deps: Pick<EntitiesDeps, 'store'>, tenant: Tenant, id: string, limit: number, skip: number): Promise<{ changes: Change[]; count: number }> {
  await assertHistoryReadable(deps, tenant, id);
  return deps.store.history(tenant.name).page(id, limit, skip);
}

/**
 * GET /{db}/entity/{id}?at=: the entity as it was at that moment, replayed from its history, with
 * today's rights (history never widens access). 404 before it was created or after it was deleted.
 */
export async function entityAt(deps: Pick<EntitiesDeps, 'store'>, tenant: Tenant, id: string, at: string, props?: readonly string[]): Promise<{ entity: Record<string, unknown> }> {
  const instant = parseInstant(at);
  await assertHistoryReadable(deps, tenant, id);
  const properties = propertiesAt(await deps.store.history(tenant.name).until(id, instant));
  if (properties === undefined) throw notFound(`Entity ${id} did not exist at ${instant}.`);
  return { entity: presentEntity({ _id: id, properties }, props) };
}
