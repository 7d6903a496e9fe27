import { abortable, callSignal, type CallOptions } from '../signals';
import type { DatabaseSchema, TypeDescription } from '../types';
import { InputError, UnknownPropertyError, UnknownTypeError } from './values';

/** A database's schema with its types findable by name and id. */
export interface KnownSchema {
  schema: DatabaseSchema;
  typeNamed(name: string): TypeDescription | undefined;
  typeName(id: string): string | undefined;
  /** When it was fetched (`Date.now()`). */
  loadedAt: number;
}

function know(schema: DatabaseSchema, loadedAt: number): KnownSchema {
  const byName = new Map<string, TypeDescription[]>();
  const byId = new Map<string, TypeDescription>();
  for (const type of schema.types) {
    byName.set(type.name, [...(byName.get(type.name) ?? []), type]);
    byId.set(type._id, type);
  }
  return {
    schema,
    loadedAt,
    typeName: (id) => byId.get(id)?.name,
    typeNamed: (name) => {
      const found = byName.get(name) ?? [];
      if (found.length > 1) throw new InputError(`${found.length} types are named "${name}" (${found.map((type) => type._id).join(', ')}): rename one`);
      return found[0];
    },
  };
}

/** Default: definitions changed by someone else are seen within a minute, or at once on a miss. */
export const DEFAULT_SCHEMA_TTL_MS = 60_000;

/**
 * The schema of one database, fetched on first use (one `GET /api/{db}/schema`, callers arriving
 * meanwhile share it), kept for `ttlMs`, and fetched afresh when a name is not found in it: a type
 * or property created after the fetch is found on its first use.
 */
export class SchemaCache {
  private known: KnownSchema | undefined;
  private loading: Promise<KnownSchema> | undefined;

  constructor(
    private readonly fetchSchema: (options: CallOptions) => Promise<DatabaseSchema>,
    private readonly ttlMs: number = DEFAULT_SCHEMA_TTL_MS,
  ) {}

  async current(options: CallOptions = {}): Promise<KnownSchema> {
    const known = this.known;
    if (known && Date.now() - known.loadedAt < this.ttlMs) return known;
    return this.reload(options);
  }

  /**
   * Fetches the schema now (joining a fetch under way). The fetch is shared, so it runs under the
   * client's own time limit, not under the signal or `timeoutMs` of whichever caller came first:
   * one caller giving up must not fail the others. Each caller stops waiting on its own.
   */
  reload(options: CallOptions = {}): Promise<KnownSchema> {
    this.loading ??= this.fetchSchema({})
      .then((schema) => (this.known = know(schema, Date.now())))
      .finally(() => (this.loading = undefined));
    return abortable(this.loading, callSignal(options, 0));
  }

  /**
   * Runs `use` with the type named `name`; when the type, or a property `use` names, is missing
   * from a schema fetched earlier, fetches it afresh and runs `use` once more.
   */
  async withType<R>(name: string, options: CallOptions, use: (type: TypeDescription, known: KnownSchema) => R | Promise<R>): Promise<R> {
    const before = this.known;
    let known = await this.current(options);
    const run = (schema: KnownSchema) => {
      const type = schema.typeNamed(name);
      if (!type) throw new UnknownTypeError(name);
      return use(type, schema);
    };
    try {
      return await run(known);
    } catch (error) {
      // Fetched before this call: a name it lacks may be newer than it.
      const stale = known === before;
      if (!stale || !(error instanceof UnknownPropertyError || error instanceof UnknownTypeError)) throw error;
      known = await this.reload(options);
      return run(known);
    }
  }
}
