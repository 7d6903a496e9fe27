import { findValue, notFound, presentEntity, presentValue, type Value } from '@entia/domain';
import type { EntitiesDeps } from './deps';
import { uploaded, withDownloadUrl } from './files';
import { readable, readableByValue } from './read';
import type { Tenant } from './tenant';

/** GET /{db}/entity/{id}: the entity as the caller may see it (only `props` when given). */
export async function getEntity(tenant: Tenant, id: string, props?: readonly string[]): Promise<{ entity: Record<string, unknown> }> {
  return { entity: presentEntity((await readable(tenant, id)).entity, props) };
}

/** GET /{db}/property/{id}: one value the caller may read; a file value with a fresh signed URL, shown inline when safe. */
export async function getValue(deps: EntitiesDeps, tenant: Tenant, id: string): Promise<Value & { url?: string }> {
  const { entity } = await readableByValue(tenant, id);
  return withDownloadUrl(deps, tenant.name, entity._id, presentValue(findValue(entity.properties, id)!), 'show');
}

/** GET /{db}/property/{id}?download=true: the signed URL of a file value whose bytes were uploaded, else 404. */
export async function downloadUrlOf(deps: EntitiesDeps, tenant: Tenant, id: string): Promise<string> {
  const { entity } = await readableByValue(tenant, id);
  const value = await withDownloadUrl(deps, tenant.name, entity._id, presentValue(findValue(entity.properties, id)!), 'download');
  if (value.url === undefined || !(await uploaded(deps, tenant.name, entity._id, value))) {
    throw notFound(value.url === undefined ? `Value ${id} is not a file.` : `The file of value ${id} was not uploaded yet.`);
  }
  return value.url;
}
