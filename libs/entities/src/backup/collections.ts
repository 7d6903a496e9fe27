/**
 * The collections an export reads and an import writes, by their stored names (libs/store's
 * classes own them; an export copies their documents as they are, so it names them here once).
 */
export const TENANT_COLLECTIONS = {
  entities: 'entity',
  history: 'history',
  deliveries: 'webhook_delivery',
} as const;

/**
 * Tenant collections an export leaves out because they are rebuilt from the entities: a counter
 * without its record starts after the highest number its property holds (libs/store `counters.ts`).
 */
export const REBUILT_COLLECTIONS = ['counter', 'counter_claim'] as const;

/** The control database's collections that hold records of one database (field `db`). */
export const CONTROL_COLLECTIONS = {
  registry: 'databases',
  credentials: 'api_keys',
  pending: 'pending',
} as const;
