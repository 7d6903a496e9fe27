import {
  assertMayManageWebhooks,
  checkWebhook,
  forbidden,
  hasRight,
  isWebhookEntity,
  notFound,
  type Caller,
  type Entity,
  type Value,
} from '@entia/domain';
import type { WebhookDelivery } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { readable } from './read';
import type { Tenant } from './tenant';

/**
 * The rules of a write that leaves `entity` a webhook: the writer owns the database
 * (403 otherwise), and its url, filter and secret are valid (400). Every write path asks it
 * (`checkAgainstTargets`): a create, a change of values, an import, a duplicate.
 */
export async function checkWebhookWrite(tenant: Tenant, entity: Entity, written: readonly Value[], caller: Caller): Promise<void> {
  if (!isWebhookEntity(tenant.record.meta, entity.properties)) return;
  const database = await tenant.entities.get(tenant.record.databaseEntity);
  assertMayManageWebhooks(database?.entity.properties, caller);
  checkWebhook(entity.properties, written);
}

/**
 * GET /{db}/entity/{id}/deliveries: the webhook's delivery log, the latest attempt first, for its
 * owners: 404 when the caller cannot read the entity (or it is no webhook), 403 when they read it
 * without owning it.
 */
export async function webhookDeliveries(
  deps: Pick<EntitiesDeps, 'store'>,
  tenant: Tenant,
  id: string,
  limit: number,
  skip: number,
): Promise<{ deliveries: Omit<WebhookDelivery, 'webhook'>[]; count: number }> {
  const { entity } = await readable(tenant, id);
  if (!isWebhookEntity(tenant.record.meta, entity.properties)) throw notFound(`Entity ${id} is not a webhook.`);
  if (!hasRight(entity.properties, tenant.caller, 'owner')) throw forbidden('The deliveries of a webhook are shown to its owners only.');
  const page = await deps.store.deliveries(tenant.name).page(id, limit, skip);
  return { deliveries: page.deliveries.map(({ webhook: _webhook, ...delivery }) => delivery), count: page.count };
}
