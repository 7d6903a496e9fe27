/**
 * Whether a process of this code may serve the stored schema. Migrations are additive,
 * so a newer schema is served (with a warning: a rollback after a migration); an older one is not
 * (the code relies on what the missing migrations add), until `entia-admin migrate` has run.
 */
export type SchemaVerdict =
  | { serve: true; state: 'current' | 'fresh' }
  | { serve: true; state: 'newer'; message: string }
  | { serve: false; state: 'behind'; message: string };

export function schemaVerdict(stored: { fresh: boolean; version: number | undefined }, needed: number): SchemaVerdict {
  if (stored.fresh || stored.version === undefined) return { serve: true, state: 'fresh' };
  if (stored.version === needed) return { serve: true, state: 'current' };
  if (stored.version > needed) {
    return { serve: true, state: 'newer', message: `schema version ${stored.version} is newer than this version's ${needed}: served, as migrations only add (an older release running after an upgrade?)` };
  }
  return { serve: false, state: 'behind', message: `schema version ${stored.version}, this version needs ${needed}: run entia-admin migrate` };
}
