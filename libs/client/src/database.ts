import { subscribe, type SubscribeOptions, type Subscription } from './changes';
import type { EntiaClient, RequestOptions } from './client';
import { download, type FileDownload } from './download';
import { queryBody, queryString } from './query';
import type { CallOptions } from './signals';
import { EntiaError } from './errors';
import { DefinitionMismatchError, definitionDifferences, definitionObjects, type DefinitionInput } from './typed/define';
import { EntityType } from './typed/entity-type';
import { SchemaCache } from './typed/schema-cache';
import { UnknownTypeError } from './typed/values';
import type { AnySchema, SchemaShape, Sharing } from './typed/shape';
import type { AddedValues, Aggregation, ChangeEvent, DatabaseSchema, TypeDescription, ValueType, Deleted, Entity, EntityList, EntityQuery, History, Thumbnail, Value, ValueInput, WriteResult } from './types';
import { uploadFile, type FileUpload, type UploadOptions } from './upload';

/** What `duplicate` asks for: how many copies, and which properties they leave out. */
export interface DuplicateOptions {
  count?: number;
  ignoredProperties?: string[];
}

/** A GraphQL answer as the server sends it: GraphQL errors are part of the answer, each with its kind in `extensions.code`. */
export interface GraphqlResult<T> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; [key: string]: unknown } }[];
}

/** Longest path `listEntities` sends as a GET, well below the server's 16 KiB for the request line and headers. */
export const MAX_GET_PATH = 8000;

/** Entities per request of `iterateEntities` unless the query sets `limit`. */
export const DEFAULT_PAGE_SIZE = 100;

/** How `type()` reads multilingual properties. */
export interface TypeOptions {
  /** Read multilingual properties in this language only: `label: 'Dune'` instead of `{en: 'Dune'}`. */
  language?: string;
}

/**
 * One database (`/api/{db}/…`), from `client.db(name)`: `type(name)` works with entities by name and
 * as plain objects; the other methods are the API's calls as they are, with its wire format (the
 * escape hatch). The database is fixed here rather than passed to every call, so a call cannot go to
 * the wrong tenant by a forgotten argument. `S`, from `entia types`, types `type()` per entity type.
 */
export class EntiaDatabase<S extends SchemaShape = AnySchema> {
  private readonly base: string;
  private readonly schemas: SchemaCache;

  constructor(
    /** The client whose token, retries and time limits this database's calls go through. */
    readonly client: EntiaClient,
    readonly name: string,
    schemaTtlMs?: number,
  ) {
    this.base = `/api/${encodeURIComponent(name)}`;
    this.schemas = new SchemaCache((options) => this.schema(options), schemaTtlMs);
  }

  /**
   * The entities of the type named `name`, by name and as objects: `db.type('book').create({title:
   * 'Dune'})`. The database's schema is fetched once (and again when a name is not found in it, or
   * after the client's `schemaTtlMs`).
   */
  type<N extends keyof S & string>(name: N): EntityType<S[N], false>;
  type<N extends keyof S & string>(name: N, options: TypeOptions & { language: string }): EntityType<S[N], true>;
  type<N extends keyof S & string>(name: N, options: TypeOptions = {}): EntityType<S[N], boolean> {
    return new EntityType<S[N], boolean>(this as EntiaDatabase<never>, this.schemas, name, options.language);
  }

  /**
   * A type with its property definitions, in one call: `defineType('book', {title: 'string',
   * tags: {type: 'string', list: true}})`. Idempotent: a type of that name is found and used, and
   * only the definitions it lacks are added, so running a quick start twice (or two processes at
   * once) leaves one type. A definition that exists with other settings is not changed: the call
   * throws `DefinitionMismatchError` before adding anything. New entities are shared with the
   * database's people (`sharing`, default `domain`) so that they can use them. Returns the type as
   * `describe()` would.
   */
  async defineType(name: string, properties: Record<string, ValueType | DefinitionInput>, options: RequestOptions & { sharing?: Sharing } = {}): Promise<TypeDescription> {
    const { sharing = 'domain', ...call } = options;
    const definitions = definitionObjects(properties, sharing);
    let type = await this.typeMadeOnce(name, sharing, call);
    const mismatched = Object.fromEntries(
      definitions.flatMap((definition) => {
        const existing = type.properties.find((property) => property.name === definition.name);
        const differences = existing ? definitionDifferences(definition, existing) : [];
        return differences.length > 0 ? [[definition.name as string, differences]] : [];
      }),
    );
    if (Object.keys(mismatched).length > 0) throw new DefinitionMismatchError(name, mismatched);
    const property = this.type('property' as keyof S & string) as unknown as EntityType<AnySchema[string]>;
    for (const definition of definitions) {
      if (type.properties.some((existing) => existing.name === definition.name)) continue;
      try {
        await property.create({ ...definition, _parent: type._id }, call);
      } catch (error) {
        // Another caller added it meanwhile (the server keeps names unique in a type): theirs stands, if it agrees.
        if (!(error instanceof EntiaError && error.status === 400)) throw error;
        type = (await this.schemas.reload(call)).typeNamed(name) ?? type;
        const theirs = type.properties.find((existing) => existing.name === definition.name);
        if (!theirs) throw error;
        const differences = definitionDifferences(definition, theirs);
        if (differences.length > 0) throw new DefinitionMismatchError(name, { [definition.name as string]: differences });
      }
    }
    await this.schemas.reload(call);
    return this.type(name as keyof S & string).describe(call);
  }

  /** The type named `name`, created when there is none; another caller creating it first (409) is found instead. */
  private async typeMadeOnce(name: string, sharing: Sharing, call: RequestOptions): Promise<TypeDescription> {
    const found = (await this.schemas.reload(call)).typeNamed(name);
    if (found) return found;
    const meta = this.type('entity' as keyof S & string) as unknown as EntityType<AnySchema[string]>;
    let taken: EntiaError | undefined;
    try {
      await meta.create({ name, _sharing: sharing }, call);
    } catch (error) {
      if (!(error instanceof EntiaError && error.status === 409)) throw error;
      taken = error;
    }
    const made = (await this.schemas.reload(call)).typeNamed(name);
    // Taken by a type this caller cannot read: the server's 409 names it.
    if (!made) throw taken ?? new UnknownTypeError(name);
    return made;
  }

  /** Fetches the schema again now: definitions changed elsewhere are used from the next call on. */
  async refreshSchema(options: CallOptions = {}): Promise<void> {
    await this.schemas.reload(options);
  }

  /**
   * `POST /api/{db}/entity`: a new entity; `values` must include `_type`. The caller becomes its
   * owner. Like every POST here it carries an `Idempotency-Key` (see `RequestOptions`), so a retry
   * after a lost answer cannot create a second entity.
   */
  createEntity(values: ValueInput[], options?: RequestOptions): Promise<WriteResult> {
    return this.client.request('POST', `${this.base}/entity`, values, options);
  }

  /**
   * `GET /api/{db}/entity/{id}`; `props` limits the properties returned; `at` asks for the entity as
   * it was at that moment (from its history, with the rights it has now; 404 before it existed).
   */
  getEntity(id: string, options: { props?: string[]; at?: Date | string } & CallOptions = {}): Promise<{ entity: Entity }> {
    const at = options.at instanceof Date ? options.at.toISOString() : options.at;
    const query = queryString({ props: options.props, at });
    return this.client.request('GET', `${this.entityPath(id)}${query}`, undefined, options);
  }

  /**
   * `GET /api/{db}/schema`: the types the caller may read, each with its property definitions (name,
   * data type, list, multilingual, formula…). What `db.type(name)` and `entia types` are built on.
   */
  schema(options: CallOptions = {}): Promise<DatabaseSchema> {
    return this.client.request('GET', `${this.base}/schema`, undefined, options);
  }

  /**
   * `GET /api/{db}/entity/{id}/history`: its changes, newest first (`limit`, default 100, and
   * `skip` page them; `count` is all of them): who set, overwrote or deleted which value, when.
   */
  history(id: string, options: { limit?: number; skip?: number } & CallOptions = {}): Promise<History> {
    const { limit, skip } = options;
    return this.client.request('GET', `${this.entityPath(id)}/history${queryString({ limit, skip })}`, undefined, options);
  }

  /**
   * `POST /api/{db}/entity/{id}`: adds values, or overwrites those named by `_id`; all or nothing.
   * Resolves with the values written, in the order sent, each naming its property in `type`.
   */
  addValues(id: string, values: ValueInput[], options?: RequestOptions): Promise<AddedValues> {
    return this.client.request('POST', this.entityPath(id), values, options);
  }

  /**
   * `GET /api/{db}/changes`: every change of an entity the caller may read that matches `filter`
   * (the list syntax: `{'_type.reference': bookType, 'pages.number.gte': 100}`) before or after it,
   * as it happens; reconnects and resumes by itself (see `subscribe` in changes.ts).
   */
  subscribe(filter: EntityQuery, onEvent: (event: ChangeEvent) => void, options?: SubscribeOptions): Subscription {
    return subscribe(this.client, this.name, filter, onEvent, options);
  }

  /**
   * `POST /api/{db}/entity/{id}/duplicate`: `count` (1…100, default 1) copies of an entity the
   * caller can read, all or none, each created by the create rules and owned by the caller;
   * `ignoredProperties` are left out of the copies (docs/decisions.md "Duplicate").
   */
  duplicate(id: string, duplicate: DuplicateOptions = {}, options?: RequestOptions): Promise<{ entities: WriteResult[] }> {
    return this.client.request('POST', `${this.entityPath(id)}/duplicate`, duplicate, options);
  }

  /**
   * `POST /api/{db}/graphql`: one GraphQL operation on this database (its schema is generated from
   * its types; see the README). Resolves with `{ data, errors }`: a refused field or mutation is an
   * error in the answer, not an exception; what is not a GraphQL answer (401, 404, 429…) throws
   * `EntiaError` like every call here.
   */
  graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, options?: RequestOptions): Promise<GraphqlResult<T>> {
    return this.client.request('POST', `${this.base}/graphql`, { query, ...(variables === undefined ? {} : { variables }) }, options);
  }

  /** `DELETE /api/{db}/entity/{id}` (owner only). */
  deleteEntity(id: string, options?: CallOptions): Promise<Deleted> {
    return this.client.request('DELETE', this.entityPath(id), undefined, options);
  }

  /**
   * `GET /api/{db}/entity?…`: filters, `sort`, `limit`, `skip`, `q`, `props`, `count`, `after` (see
   * `EntityQuery`); the page's `next`, when more matches follow, is the `after` of the next page. A
   * query whose URL would be longer than `MAX_GET_PATH` (an `in` of 1000 ids is 25 000 characters;
   * the server refuses request lines over 16 KiB) is sent as `queryEntities` instead.
   */
  listEntities(query: EntityQuery = {}, options?: CallOptions): Promise<EntityList> {
    const path = `${this.base}/entity${queryString(query)}`;
    return path.length <= MAX_GET_PATH ? this.client.request('GET', path, undefined, options) : this.queryEntities(query, options);
  }

  /**
   * Every entity matching `query`, page after page (`limit` is the page size, default 100), for
   * `for await`. Each page is one request, made when the previous one is used up; breaking out of
   * the loop requests no more. Pages follow each other by cursor (`after` = the previous page's
   * `next`, with `count: 'none'`: no page pays for a count), so entities created or deleted
   * meanwhile never make the walk repeat or miss one that exists throughout, in any sort order; it
   * ends when a page has no `next`. `skip` or `after` in `query` say where the first page starts
   * (`skip` counts positions, as `listEntities` does; the server refuses the two together); every
   * later page follows by cursor. `count` in `query` is ignored. Needs a server with cursor paging
   * (Entia since its cursor paging); an older one refuses `count`.
   */
  async *iterateEntities(query: EntityQuery = {}, options?: CallOptions): AsyncGenerator<Entity, void, undefined> {
    const pageSize = typeof query.limit === 'number' && query.limit > 0 ? query.limit : DEFAULT_PAGE_SIZE;
    let page = await this.listEntities({ ...query, limit: pageSize, count: 'none' }, options);
    for (;;) {
      yield* page.entities;
      if (page.next === undefined) return;
      page = await this.listEntities({ ...query, limit: pageSize, count: 'none', skip: undefined, after: page.next }, options);
    }
  }

  /**
   * `POST /api/{db}/entity/query`: the same query in a body, never served from the cache. A read,
   * so it is retried like a GET: the `Idempotency-Key` every POST carries lets the client repeat it,
   * and the server keeps no answer under it.
   */
  queryEntities(query: EntityQuery = {}, options?: CallOptions): Promise<EntityList> {
    return this.client.request('POST', `${this.base}/entity/query`, queryBody(query), options);
  }

  /** `POST /api/{db}/entity/{id}/aggregate`: recomputes that entity's formulas now (SPEC §7). */
  aggregateEntity(id: string, options?: RequestOptions): Promise<{ entity: Entity }> {
    return this.client.request('POST', `${this.entityPath(id)}/aggregate`, undefined, options);
  }

  /**
   * `POST /api/{db}/aggregate`: schedules recomputing every entity of the database (owners of its
   * database entity only); returns the job's id for `aggregation`.
   */
  aggregateDatabase(options?: RequestOptions): Promise<{ id: string }> {
    return this.client.request('POST', `${this.base}/aggregate`, undefined, options);
  }

  /** `GET /api/{db}/aggregate/{id}`: state and `{done, total}` progress of a whole-database rebuild. */
  aggregation(id: string, options?: CallOptions): Promise<Aggregation> {
    return this.client.request('GET', `${this.base}/aggregate/${encodeURIComponent(id)}`, undefined, options);
  }

  /** Polls `aggregation(id)` until it is completed or failed, or `timeoutMs` passes. */
  async waitForAggregation(id: string, timeoutMs = 30_000, pollMs = 100, options: CallOptions = {}): Promise<Aggregation> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.aggregation(id, options);
      if (status.state === 'completed' || status.state === 'failed') return status;
      if (Date.now() > deadline) throw new Error(`aggregation ${id} still ${status.state} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      options.signal?.throwIfAborted();
    }
  }

  /** `GET /api/{db}/property/{id}`: one value; a file value carries a short-lived download `url`. */
  getProperty(valueId: string, options?: CallOptions): Promise<Value> {
    return this.client.request('GET', this.propertyPath(valueId), undefined, options);
  }

  /**
   * A file value's content: its metadata from `GET /api/{db}/property/{id}`, then its bytes from the
   * signed URL (valid 60 s, so fetched at once). The answer's `response` is the storage's: read it
   * with `.blob()`, `.arrayBuffer()` or `.body` (a stream). A value never uploaded is a 404
   * `EntiaError`.
   */
  download(valueId: string, options?: CallOptions): Promise<FileDownload> {
    return download(this, valueId, options);
  }

  /**
   * `GET /api/{db}/property/{id}/thumbnail/{size}`: the square thumbnail of an image file value
   * (sizes 50, 100, 200, 400, 800), made on first request; its `url` lives 60 s.
   */
  thumbnail(valueId: string, size: number, options?: CallOptions): Promise<Thumbnail> {
    return this.client.request('GET', `${this.propertyPath(valueId)}/thumbnail/${size}`, undefined, options);
  }

  /** `GET /api/{db}/entity/{id}/thumbnail/{size}`: the thumbnail of the entity's first `photo`. */
  entityThumbnail(entityId: string, size: number, options?: CallOptions): Promise<Thumbnail> {
    return this.client.request('GET', `${this.entityPath(entityId)}/thumbnail/${size}`, undefined, options);
  }

  /** `DELETE /api/{db}/property/{id}`: one value; deleting an `_api_key` value revokes that key. */
  deleteProperty(valueId: string, options?: CallOptions): Promise<Deleted> {
    return this.client.request('DELETE', this.propertyPath(valueId), undefined, options);
  }

  /**
   * Stores a file as a new value of the file property `file.type` on entity `entityId` (interface §8):
   * POSTs its metadata (`filesize` = `data` length), PUTs the bytes to the signed `upload.url` with
   * exactly `upload.headers`, and returns the created value. An expired upload URL deletes the value
   * and starts again (interface §7), at most `options.attempts` times (default 3). Any other storage
   * failure deletes the value and throws an `UploadError` with the storage's status.
   */
  uploadFile(entityId: string, file: FileUpload, options: UploadOptions = {}): Promise<Value> {
    return uploadFile(this, entityId, file, options);
  }

  /**
   * A new API key for a person entity (the person themselves or its owner may do this). The plaintext
   * is in this response only; the server keeps a hash and shows `"***"` ever after (a retry under the
   * call's `Idempotency-Key` receives the same key, sealed in the server's record of the answer).
   */
  async generateApiKey(personId: string, options?: RequestOptions): Promise<string> {
    const result = await this.addValues(personId, [{ type: '_api_key' }], options);
    const key = Array.isArray(result?.properties) ? result.properties.find((value) => value.type === '_api_key')?.string : undefined;
    if (typeof key !== 'string') throw new Error('the API answered without the generated key');
    return key;
  }

  private entityPath(id: string): string {
    return `${this.base}/entity/${encodeURIComponent(id)}`;
  }

  private propertyPath(id: string): string {
    return `${this.base}/property/${encodeURIComponent(id)}`;
  }
}
