import type { SubscribeOptions, Subscription } from '../changes';
import type { RequestOptions } from '../client';
import type { EntiaDatabase } from '../database';
import type { CallOptions } from '../signals';
import type { ChangeEvent, Entity, TypeDescription } from '../types';
import type { FileUpload, UploadOptions } from '../upload';
import type { KnownSchema, SchemaCache } from './schema-cache';
import type { AddInput, CreateInput, EntityObject, FileInfo, FileKeys, ListParams, Selected, TypeShape, UpdateInput, Where } from './shape';
import { namesToRead, planUpdate } from './update';
import { toValueInputs, toObject, InputError } from './values';
import { toListQuery } from './where';

/** One page of a list, as objects; `count` is every match. */
export interface Page<O> {
  items: O[];
  count: number;
  limit: number;
  skip: number;
  /** When more matches follow: the `after` of the next page. */
  next?: string;
}

export interface GetOptions<S> extends CallOptions {
  /** Only these properties (and the system fields). */
  select?: S[];
  /** The entity as it was at that moment (from its history). */
  at?: Date | string;
}

/** A change of an entity of this type; `object` holds the `select`ed properties when asked for. */
export interface TypedChangeEvent<O> extends ChangeEvent {
  object?: O;
}

/** A file to upload to a file property: its content, or a `File`/`Blob` by itself. */
export type UploadInput = Omit<FileUpload, 'type' | 'language'> | Blob;

type Result<T extends TypeShape, P extends boolean, S> = [S] extends [never] ? EntityObject<T, P> : Selected<T, P, S & keyof T>;

/**
 * The entities of one type, by name and as plain objects (from `db.type('book')`): the type's
 * definitions turn objects into the wire's values and back. Every call takes a `signal` and a
 * `timeoutMs`; writes also an `idempotencyKey` (see `RequestOptions`).
 */
export class EntityType<T extends TypeShape, Picked extends boolean = false> {
  /** @internal Made by `db.type(name)`. */
  constructor(
    private readonly db: EntiaDatabase,
    private readonly schemas: SchemaCache,
    /** The type's name. */
    readonly name: string,
    private readonly language: string | undefined,
  ) {}

  /** The type's definitions as the server described them. */
  describe(options: CallOptions = {}): Promise<TypeDescription> {
    return this.schemas.withType(this.name, options, (type) => type);
  }

  /**
   * A new entity of this type (`POST /api/{db}/entity`) from an object: `{title: 'Dune', tags:
   * ['sf'], author: authorId, label: {en: 'Dune'}}`; returns it as stored, computed properties
   * included. Files are uploaded afterwards with `upload`.
   */
  async create(data: CreateInput<T>, options: RequestOptions = {}): Promise<EntityObject<T, Picked>> {
    const written = await this.schemas.withType(this.name, options, (type) =>
      this.db.createEntity([{ type: '_type', reference: type._id }, ...toValueInputs(type, data as Record<string, unknown>)], options),
    );
    return this.get(written._id, options) as Promise<EntityObject<T, Picked>>;
  }

  /** One entity of this type by id; `select` narrows the properties, `at` reads the past. */
  async get<S extends keyof T & string = never>(id: string, options: GetOptions<S> = {}): Promise<Result<T, Picked, S>> {
    const { select, at } = options;
    return this.schemas.withType(this.name, options, async (type, known) => {
      const query = select ? toListQuery(type, { select }).props : undefined;
      const { entity } = await this.db.getEntity(id, { ...(Array.isArray(query) ? { props: query } : {}), ...(at === undefined ? {} : { at }), ...options });
      return this.object(entity, type, known, select) as Result<T, Picked, S>;
    });
  }

  /**
   * One page of entities of this type: `where` filters by name with operators (`{pages: {gte: 100}}`),
   * `sort` by name (`'-pages'`), `q` searches, `select` narrows the properties; `after` (a page's
   * `next`) continues after that page.
   */
  async list<S extends keyof T & string = never>(params: ListParams<T, S> = {}, options: CallOptions = {}): Promise<Page<Result<T, Picked, S>>> {
    return this.schemas.withType(this.name, options, async (type, known) => {
      const page = await this.db.listEntities(toListQuery(type, params as ListParams<TypeShape>), options);
      const items = page.entities.map((entity) => this.object(entity, type, known, params.select) as Result<T, Picked, S>);
      // `list` never asks for `count: 'none'`, so the server always counts.
      return { items, count: page.count ?? 0, limit: page.limit, skip: page.skip, ...(page.next === undefined ? {} : { next: page.next }) };
    });
  }

  /**
   * Every entity of this type matching `params`, for `for await`: one request per page (`limit`
   * entities, default 100), made when the previous page is used up; pages follow by cursor
   * (`iterateEntities`), so writes meanwhile never repeat or drop an entity.
   */
  async *iterate<S extends keyof T & string = never>(params: Omit<ListParams<T, S>, 'skip'> = {}, options: CallOptions = {}): AsyncGenerator<Result<T, Picked, S>, void, undefined> {
    const { type, known, query } = await this.schemas.withType(this.name, options, (type, known) => ({ type, known, query: toListQuery(type, params as ListParams<TypeShape>) }));
    for await (const entity of this.db.iterateEntities(query, options)) yield this.object(entity, type, known, params.select) as Result<T, Picked, S>;
  }

  /**
   * Changes values by name: a single value is replaced, a list becomes exactly the given values
   * (values kept as they are keep their ids), `null` removes a property's values (`{en: null}` one
   * language's). Sent as one all-or-nothing POST, then one DELETE per removed value; returns the
   * entity as it is afterwards.
   */
  async update(id: string, patch: UpdateInput<T>, options: RequestOptions = {}): Promise<EntityObject<T, Picked>> {
    await this.schemas.withType(this.name, options, async (type) => {
      const input = patch as Record<string, unknown>;
      // A patch the definitions refuse is refused before the read of the present values.
      planUpdate(type, input, undefined);
      const names = namesToRead(type, input);
      const current = names.length === 0 ? undefined : (await this.db.getEntity(id, { props: names, ...options })).entity;
      const plan = planUpdate(type, input, current);
      if (plan.values.length > 0) await this.db.addValues(id, plan.values, options);
      for (const valueId of plan.deletions) await this.db.deleteProperty(valueId, options);
    });
    return this.get(id, options) as Promise<EntityObject<T, Picked>>;
  }

  /** Adds values beside the present ones (a single-valued property is replaced); one POST. */
  async add(id: string, values: AddInput<T>, options: RequestOptions = {}): Promise<EntityObject<T, Picked>> {
    await this.schemas.withType(this.name, options, (type) => this.db.addValues(id, toValueInputs(type, values as Record<string, unknown>), options));
    return this.get(id, options) as Promise<EntityObject<T, Picked>>;
  }

  /** Deletes the entity (owners only). */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.db.deleteEntity(id, options);
  }

  /**
   * Stores a file as a value of the file property `property` (a `File` or `Blob` as it is, or
   * `{data, filename, filetype, size}` for bytes and streams); see `EntiaDatabase.uploadFile` for
   * the restart rule.
   */
  async upload<K extends FileKeys<T>>(id: string, property: K, file: UploadInput, options: UploadOptions & { language?: string } = {}): Promise<FileInfo> {
    const content = typeof Blob !== 'undefined' && file instanceof Blob ? { data: file } : (file as Omit<FileUpload, 'type'>);
    const { language, ...rest } = options;
    const value = await this.db.uploadFile(id, { ...content, type: property, ...(language === undefined ? {} : { language }) }, rest);
    return { _id: value._id, filename: value.filename!, filesize: value.filesize!, filetype: value.filetype! };
  }

  /** The changes of entities of this type matching `where`, as they happen (see `EntiaDatabase.subscribe`). */
  subscribe<S extends keyof T & string = never>(
    where: Where<T>,
    onEvent: (event: TypedChangeEvent<Result<T, Picked, S>>) => void,
    options: Omit<SubscribeOptions, 'props'> & { select?: S[] } = {},
  ): Promise<Subscription> {
    const { select, ...rest } = options;
    return this.schemas.withType(this.name, { ...(rest.signal ? { signal: rest.signal } : {}) }, (type, known) => {
      const { props, ...filter } = toListQuery(type, { where: where as Record<string, unknown>, ...(select ? { select } : {}) });
      const propsOption = Array.isArray(props) ? { props } : {};
      return this.db.subscribe(filter, (event) => {
        const object = event.values === undefined ? undefined : (this.object({ ...event.values, _id: event.entity }, type, known, select) as Result<T, Picked, S>);
        onEvent(object === undefined ? event : { ...event, object });
      }, { ...rest, ...propsOption });
    });
  }

  private object(entity: Entity, type: TypeDescription, known: KnownSchema, select: readonly string[] | undefined): EntityObject<T, Picked> {
    const typeId = Array.isArray(entity._type) ? entity._type[0]?.reference : undefined;
    if (typeId !== undefined && typeId !== type._id) {
      throw new InputError(`entity ${entity._id} is of type "${known.typeName(typeId) ?? typeId}", not "${type.name}"`);
    }
    const object = toObject(entity, type, { typeName: known.typeName, language: this.language, select });
    rawEntities.set(object, entity);
    return object as EntityObject<T, Picked>;
  }
}

const rawEntities = new WeakMap<object, Entity>();

/**
 * The wire entity an object was made from: every value with its `_id` (to overwrite one with
 * `db.addValues`), `created` and `language`. Undefined for an object the SDK did not make.
 */
export function rawOf(object: object): Entity | undefined {
  return rawEntities.get(object);
}
