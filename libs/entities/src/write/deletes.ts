import { CREDENTIAL_PROPERTIES, assertMayDelete, isCredentialProperty, findValue, materialise, notFound, removeValue, typeOf } from '@entia/domain';
import { newId } from '@entia/store';
import type { EntitiesDeps } from '../deps';
import { schemaOf } from '../definitions';
import { removeAgainLater } from '../files';
import { addressable, readableByValue } from '../read';
import { signedIn, type Tenant } from '../tenant';
import { afterCommit, eventsOf, invalidate, outboxOf, publishNow } from './effects';
import { inTurn } from './turns';

/** DELETE /{db}/entity/{id}: owners only; its credentials are revoked, its files removed. */
export async function deleteEntity(deps: EntitiesDeps, tenant: Tenant, id: string): Promise<{ deleted: true }> {
  const caller = signedIn(tenant);
  const done = await inTurn(() =>
    deps.writer.update(tenant.name, id, async (stored) => {
      const current = addressable(tenant, stored, id, false);
      assertMayDelete(current.entity.properties, caller);
      const values = Object.values(current.entity.properties).flat();
      const author = { at: new Date().toISOString(), by: caller.personId };
      const outbox = outboxOf(tenant, await schemaOf(deps, tenant), current.entity, undefined, values, { author, version: current.version + 1 });
      await invalidate(deps, tenant, current.entity);
      return {
        next: { kind: 'tombstone' as const },
        add: outbox,
        committed: () => publishNow(deps, tenant.name, eventsOf(outbox)),
        revokeKeys: CREDENTIAL_PROPERTIES.flatMap((name) => current.entity.properties[name] ?? []).map((credential) => credential._id),
        outcome: { entity: current.entity, outbox, values },
      };
    }),
  );
  await afterCommit(deps, tenant, done);
  await removeAgainLater(deps, tenant.name, id, done.values);
  return { deleted: true };
}

/** DELETE /{db}/property/{id}: one value, under the same rules as writing it. */
export async function deleteValue(deps: EntitiesDeps, tenant: Tenant, valueId: string): Promise<{ deleted: true }> {
  const caller = signedIn(tenant);
  const holder = (await readableByValue(tenant, valueId, true)).entity._id;
  const done = await inTurn(() =>
    deps.writer.update(tenant.name, holder, async (stored) => {
      const current = addressable(tenant, stored, holder, true);
      // It may have been deleted while this request waited for its turn.
      if (!findValue(current.entity.properties, valueId)) throw notFound(`No property ${valueId}.`);
      const schema = await schemaOf(deps, tenant);
      const compiled = schema.typeOf(typeOf(current.entity.properties));
      const { properties: remaining, removed } = removeValue(current.entity, valueId, caller, compiled.definitions);
      const stamp = { at: new Date().toISOString(), by: caller.personId };
      const next = materialise({ entity: { _id: holder, properties: remaining }, type: compiled, targets: new Map(), stamp, newId });
      const { entity } = next;
      const outbox = outboxOf(tenant, schema, current.entity, entity, [removed], { author: stamp, version: current.version + 1 });
      await invalidate(deps, tenant, entity);
      return {
        next: { kind: 'replace' as const, stored: next },
        add: outbox,
        committed: () => publishNow(deps, tenant.name, eventsOf(outbox)),
        revokeKeys: isCredentialProperty(removed.type) ? [removed._id] : [],
        outcome: { entity, outbox, removed },
      };
    }),
  );
  await afterCommit(deps, tenant, done);
  await removeAgainLater(deps, tenant.name, holder, [done.removed]);
  return { deleted: true };
}
