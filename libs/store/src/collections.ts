/**
 * Every collection the store keeps, by its stored name: the one list. The store's classes, the
 * migrations and the backup (which copies whole collections) read the names here.
 */

/** A tenant database's collections (one MongoDB database per tenant). */
export const TENANT_COLLECTIONS = {
  entities: 'entity',
  history: 'history',
  deliveries: 'webhook_delivery',
  /** A counter property's last number, and the claims of numbers handed out (`counters.ts`). */
  counters: 'counter',
  counterClaims: 'counter_claim',
} as const;

/** The control database's collections: what spans tenants. */
export const CONTROL_COLLECTIONS = {
  /** One record per tenant database (`DatabaseRecord`). */
  registry: 'databases',
  /** Credential records (`KeyRecord`): API keys, identities, passkeys, each with its `db`. */
  credentials: 'api_keys',
  /** Marks of derived data not settled yet, each with its `db` (`PendingWork`). */
  pending: 'pending',
  /** The storage schema's version and the migration lock (`SchemaRecords`). */
  schema: 'schema',
} as const;
