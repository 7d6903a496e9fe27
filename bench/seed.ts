import { type MetaTypes, type ValueInput } from '@entia/domain';
import { EntityCollection, TENANT_COLLECTIONS, type DatabaseRecord, type Store } from '@entia/store';
import { ImportSession, addValues, createDatabase, createEntity, importEntities, type EntitiesDeps, type ImportInput, type Tenant } from '@entia/entities';
import { ObjectId } from 'mongodb';
import {
  FIRST_NAMES,
  LAST_NAMES,
  RARE_WORD,
  TAGS,
  VOCABULARY,
  capitalise,
  dateBetween,
  prng,
  shape,
  sharingOf,
  zipf,
  type Sharing,
} from './data';

/** What the queries need to know about a seeded benchmark database. */
export interface World {
  db: string;
  meta: MetaTypes;
  owner: string;
  reader: string;
  types: { author: string; book: string; review: string };
  /** The book with the most reviews: the "reviews of a book" query asks for it. */
  popularBook: string;
  popularBookReviews: number;
  rareWordReviews: number;
  size: number;
  counts: { author: number; book: number; review: number };
  seed: number;
  sharing: Record<Sharing, number>;
}

export interface SeedTiming {
  type: string;
  entities: number;
  /** Generating their values, ms. */
  buildMs: number;
  /** `importEntities` in batches (the write rules, reference checks, materialise, insert), ms. */
  insertMs: number;
  /** Only in reports of seeds before `importEntities`: the type's definitions looked up, ms. */
  lookupMs?: number;
}

export interface SeedReport {
  createDatabaseMs: number;
  schemaMs: number;
  timings: SeedTiming[];
  totalMs: number;
  batch: number;
}

/** Where a seeded database remembers its world, so `--reuse` can query it again without seeding. */
const WORLD_COLLECTION = 'bench_world';

const PROPERTIES = {
  author: [
    { name: 'name', type: 'string', search: true },
    { name: 'born', type: 'date' },
  ],
  book: [
    { name: 'title', type: 'string', search: true },
    { name: 'pages', type: 'number' },
    { name: 'published', type: 'date' },
    { name: 'tag', type: 'string', list: true },
    { name: 'label', type: 'string', multilingual: true },
    { name: 'author', type: 'reference' },
  ],
  review: [
    { name: 'rating', type: 'number' },
    { name: 'book', type: 'reference' },
    { name: 'text', type: 'text', search: true },
  ],
} as const;

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** A request's view of the tenant, as the API builds it (services/api/src/tenancy.ts). */
function tenantOf(store: Store, record: DatabaseRecord, personId: string | undefined, maxTimeMS: number): Tenant {
  return { name: record._id, record, entities: new EntityCollection(store.database(record._id), maxTimeMS), caller: personId ? { personId } : {} };
}

/** Creates through the API's own write path (definitions, reference checks, rights) and returns the id. */
async function create(deps: EntitiesDeps, tenant: Tenant, items: ValueInput[]): Promise<string> {
  return (await createEntity(deps, tenant, items))._id;
}

/**
 * Creates the database the way the create-database command does, then the benchmark's types and a
 * second person through the API's write path, then `size` entities with `importEntities`, one
 * batch per call: each checked and materialised as POST /entity would (labels and index included)
 * and inserted through the one write path.
 */
export async function seed(app: EntitiesDeps, options: { db: string; size: number; batch: number; seed: number; maxTimeMS: number; onCreated?: () => void }): Promise<{ world: World; report: SeedReport }> {
  const { store } = app;
  const started = performance.now();
  const created = await createDatabase(store, options.db, 'Bench Owner');
  options.onCreated?.();
  const createDatabaseMs = performance.now() - started;
  const record = (await store.registry.database(options.db))!;
  const ownerTenant = tenantOf(store, record, created.personId, options.maxTimeMS);

  const schemaStarted = performance.now();
  const reader = await create(app, ownerTenant, [
    { type: '_type', reference: created.types.person },
    { type: 'name', string: 'Bench Reader' },
  ]);
  const types = {} as World['types'];
  for (const name of ['author', 'book', 'review'] as const) {
    const typeId = await create(app, ownerTenant, [
      { type: '_type', reference: created.types.entity },
      { type: 'name', string: name },
      { type: '_sharing', string: 'domain' },
    ]);
    for (const definition of PROPERTIES[name]) {
      const flags = (['list', 'multilingual', 'search'] as const).flatMap((flag) => ((definition as Record<string, unknown>)[flag] ? [{ type: flag, boolean: true }] : []));
      await create(app, ownerTenant, [
        { type: '_type', reference: created.types.property },
        { type: '_parent', reference: typeId },
        { type: 'name', string: definition.name },
        { type: 'type', string: definition.type },
        ...flags,
      ]);
    }
    types[name] = typeId;
  }
  const schemaMs = performance.now() - schemaStarted;

  const random = prng(options.seed);
  const counts = shape(options.size);
  const word = zipf(VOCABULARY, 1);
  const tag = zipf(TAGS, 0.8);
  const sharing: Record<Sharing, number> = { private: 0, viewer: 0, domain: 0, public: 0 };
  const baseTime = Date.UTC(2023, 0, 1);
  const span = 2 * 365 * 86_400_000;
  let serial = 0;

  const timings: SeedTiming[] = [];
  // The authors and books the later batches reference, known from their import: not read back.
  const session = new ImportSession();
  async function bulk(type: keyof World['types'], count: number, valuesOf: (i: number) => ValueInput[]): Promise<string[]> {
    const ids: string[] = [];
    const timing: SeedTiming = { type, entities: count, buildMs: 0, insertMs: 0 };
    let batch: ImportInput[] = [];
    const flush = async () => {
      const t = performance.now();
      ids.push(...(await importEntities(app, ownerTenant, batch, { batch: batch.length, session })));
      timing.insertMs += performance.now() - t;
      batch = [];
    };
    let lastLog = performance.now();
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      const share = sharingOf(random);
      sharing[share]++;
      const values: ValueInput[] = [{ type: '_type', reference: types[type] }, ...valuesOf(i)];
      if (share === 'viewer') values.push({ type: '_viewer', reference: reader });
      if (share === 'domain' || share === 'public') values.push({ type: '_sharing', string: share });
      // Creation times spread over two years, in creation order.
      const createdAt = new Date(baseTime + Math.floor((serial++ / options.size) * span) + Math.floor(random() * 60_000)).toISOString();
      batch.push({ values, createdAt });
      timing.buildMs += performance.now() - t;
      if (batch.length >= options.batch) await flush();
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        const elapsed = (timing.buildMs + timing.insertMs) / 1000;
        log(`${type}: ${i + 1}/${count} (${Math.round((i + 1) / elapsed)}/s)`);
      }
    }
    if (batch.length > 0) await flush();
    timings.push(timing);
    log(`${type}: ${count} in ${((timing.buildMs + timing.insertMs) / 1000).toFixed(1)} s`);
    return ids;
  }

  const authors = await bulk('author', counts.author, () => [
    { type: 'name', string: `${FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)]} ${LAST_NAMES[Math.floor(random() * LAST_NAMES.length)]}` },
    { type: 'born', date: dateBetween(random, 1900, 2000) },
  ]);

  const books = await bulk('book', counts.book, () => {
    const title = Array.from({ length: 2 + Math.floor(random() * 4) }, () => word(random)).map(capitalise).join(' ');
    const tags = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => tag(random)))];
    return [
      { type: 'title', string: title },
      { type: 'pages', number: 40 + Math.floor(random() * 1160) },
      { type: 'published', date: dateBetween(random, 1950, 2024) },
      ...tags.map((t) => ({ type: 'tag', string: t })),
      { type: 'label', string: title, language: 'en' },
      { type: 'label', string: `Raamat: ${title}`, language: 'et' },
      { type: 'author', reference: authors[Math.floor(random() * authors.length)]! },
    ];
  });

  // 5 % of the reviews go to the 500 most popular books (Zipf), the rest anywhere: the first book
  // then has a few hundred reviews at 100 000 entities, a typical book one or two.
  const popular = zipf(books.slice(0, 500), 1);
  const reviewsPerBook = new Map<string, number>();
  const rareEvery = Math.max(1, Math.floor(counts.review / Math.max(3, Math.round(options.size / 10_000))));
  let rareWordReviews = 0;
  await bulk('review', counts.review, (i) => {
    const book = random() < 0.05 ? popular(random) : books[Math.floor(random() * books.length)]!;
    reviewsPerBook.set(book, (reviewsPerBook.get(book) ?? 0) + 1);
    const words = Array.from({ length: 8 + Math.floor(random() * 23) }, () => word(random));
    if (i % rareEvery === rareEvery - 1) {
      words.splice(Math.floor(random() * words.length), 0, RARE_WORD);
      rareWordReviews++;
    }
    const text = words.join(' ');
    return [
      { type: 'rating', number: 1 + Math.min(4, Math.floor(random() ** 0.6 * 5)) },
      { type: 'book', reference: book },
      { type: 'text', string: capitalise(text) + '.' },
    ];
  });
  const [popularBook, popularBookReviews] = [...reviewsPerBook].reduce((a, b) => (b[1] > a[1] ? b : a));

  const world: World = {
    db: options.db,
    meta: created.types,
    owner: created.personId,
    reader,
    types,
    popularBook,
    popularBookReviews,
    rareWordReviews,
    size: counts.author + counts.book + counts.review,
    counts,
    seed: options.seed,
    sharing,
  };
  const report: SeedReport = {
    createDatabaseMs,
    schemaMs,
    timings,
    totalMs: performance.now() - started,
    batch: options.batch,
  };
  await store.database(options.db).collection(WORLD_COLLECTION).insertOne({ _id: 'world' as unknown as ObjectId, world, seeding: report });
  return { world, report };
}

/** The world (and how it was seeded) of a database seeded by an earlier `--keep` / `--seed-only` run. */
export async function loadWorld(store: Store, db: string): Promise<{ world: World; seeding: SeedReport }> {
  const found = await store.database(db).collection(WORLD_COLLECTION).findOne({ _id: 'world' as unknown as ObjectId });
  if (!found) throw new Error(`database "${db}" holds no benchmark data set (no ${WORLD_COLLECTION} document)`);
  return { world: found.world as World, seeding: found.seeding as SeedReport };
}

/**
 * Forgets the derived work the seed left (its pending marks, and its outboxes' unsettled times, so
 * that the worker's sweep does not find them): the import labelled every reference and these types
 * have no formulas, so that work would change nothing, and on an engine that scans the worker would
 * spend many minutes on it beside the timed scenarios. The outboxes stay (their history rows are
 * read from there). Resolves to how many marks and outboxes were forgotten.
 */
export async function forgetSeedWork(store: Store, db: string): Promise<number> {
  const marks = await store.control.collection('pending').deleteMany({ db });
  const outboxes = await store.database(db).collection(TENANT_COLLECTIONS.entities).updateMany({ __unsettled: { $exists: true } }, { $unset: { __unsettled: '' } });
  return marks.deletedCount + outboxes.modifiedCount;
}

/** Drops the database and everything the registry knows of it. */
export async function dropBenchDatabase(store: Store, db: string): Promise<void> {
  await store.database(db).dropDatabase();
  await store.registry.keys.deleteMany({ db });
  // Its marks of derived work left would keep every later worker on the control database busy.
  await store.control.collection('pending').deleteMany({ db });
  await store.registry.unregister(db);
}

/** A new API key of the benchmark's owner (generated through the API's write path), in plain text. */
export async function ownerApiKey(app: EntitiesDeps, world: World): Promise<string> {
  const record = (await app.store.registry.database(world.db))!;
  const written = await addValues(app, tenantOf(app.store, record, world.owner, 60_000), world.owner, [{ type: '_api_key' }]);
  return written.properties.find((value) => value.type === '_api_key')!.string!;
}

export { tenantOf };
