import { entityBuilder, type EntitiesDeps } from '@entia/entities';
import type { ValueInput } from '@entia/domain';
import { toDocument, type Store } from '@entia/store';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { CeilingKind } from './ceiling-server';
import { ObjectId } from 'mongodb';
import { benchQueries, queryString } from '../queries';
import { tenantOf, type World } from '../seed';
import type { Meter } from './costs';
import { driverLoad } from './driver-load';
import { httpLoad, type HttpLoad } from './http-load';
import type { Throughput } from './stats';

/** What every scenario reaches: the running API, a token, the seeded data, the raw collection. */
export interface Bench {
  base: string;
  token: string;
  world: World;
  /** The application, opened once (`openBenchApp`); `store` is its store. */
  app: EntitiesDeps;
  store: Store;
  connections: number;
  duration: number;
  listRequests: number;
  /** Entity ids of the data set, shuffled; disjoint slices serve scenarios that must not share. */
  ids: string[];
  books: string[];
  /** What each request through the API cost: commands and CPU time (bench/load/costs.ts). */
  meter: Meter;
}

export interface Scenario {
  id: string;
  title: string;
  /** The ceilings it is compared with, by id. */
  ceilings?: string[];
  run(bench: Bench): Promise<Throughput>;
}

// The books the driver-ceiling reviews reference: loaded (and checked) once, before the timed run.
const CEILING_BOOKS = 100;

const auth = (bench: Bench) => ({ authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' });
const cycle = <T>(items: readonly T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};
/** A timed scenario against the API, signed in as the data set's owner, metered. */
const timedApiLoad = (bench: Bench, next: HttpLoad['next'], expect: readonly number[]) =>
  httpLoad({ url: bench.base, connections: bench.connections, duration: bench.duration, headers: auth(bench), next, expect, meter: bench.meter });
/**
 * `listRequests` lists of the data set by `query`, each with a different `skip`, so every request
 * runs the query (none is a cache hit).
 */
function pagedLists(bench: Bench, query: string): Promise<Throughput> {
  let page = 0;
  return httpLoad({
    url: bench.base,
    connections: Math.min(bench.connections, bench.listRequests),
    amount: bench.listRequests,
    headers: auth(bench),
    meter: bench.meter,
    next: () => ({ path: `/api/${bench.world.db}/entity?${query}&skip=${page++}` }),
    expect: [200],
  });
}
const entityCollection = (bench: Bench) => bench.store.database(bench.world.db).collection('entity');

/** The bytes of one GET entity response, as the API answers it. */
async function entityBytes(bench: Bench): Promise<Buffer> {
  const res = await fetch(`${bench.base}/api/${bench.world.db}/entity/${bench.ids[0]}`, { headers: auth(bench) });
  return Buffer.from(await res.arrayBuffer());
}

/**
 * A ceiling: a server answering the bytes of one GET entity response (`ceiling-server.ts`: bare
 * Node `http`, or an express app with one route), in a process of its own like the API, driven for
 * the benchmark's duration, then stopped.
 */
async function ceilingLoad(bench: Bench, kind: CeilingKind): Promise<Throughput> {
  const body = await entityBytes(bench);
  const child = fork(join(__dirname, 'ceiling-server.js'), [], { stdio: 'inherit' });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: { port: number }) => resolve(message.port));
      child.once('exit', (code) => reject(new Error(`the ${kind} ceiling's server exited with ${code}`)));
      child.send({ kind, body: body.toString('base64') });
    });
    return await httpLoad({ url: `http://127.0.0.1:${port}`, connections: bench.connections, duration: bench.duration, next: () => ({ path: '/' }), expect: [200] });
  } finally {
    child.kill();
  }
}

export function scenarios(world: World): Scenario[] {
  const db = (bench: Bench) => bench.world.db;
  return [
    { id: 'ceiling-http', title: 'bare Node http server, same response bytes (own process)', run: (bench) => ceilingLoad(bench, 'http') },
    { id: 'ceiling-express', title: 'bare express app, one route, same response bytes (own process)', run: (bench) => ceilingLoad(bench, 'express') },
    {
      id: 'get-cached',
      title: 'GET entity by id, cached (100 entities, warmed)',
      ceilings: ['ceiling-http', 'ceiling-express'],
      async run(bench) {
        const hot = bench.ids.slice(0, 100);
        for (const id of hot) await fetch(`${bench.base}/api/${db(bench)}/entity/${id}`, { headers: auth(bench) });
        const next = cycle(hot);
        return timedApiLoad(bench, () => ({ path: `/api/${db(bench)}/entity/${next()}` }), [200]);
      },
    },
    {
      id: 'ceiling-driver-read',
      title: 'findOne by _id through the MongoDB driver (distinct ids)',
      async run(bench) {
        const ids = bench.ids.slice(100).reverse();
        const collection = entityCollection(bench);
        return driverLoad(bench.connections, bench.duration, (i) => collection.findOne({ _id: new ObjectId(ids[i % ids.length]) }));
      },
    },
    {
      id: 'get-cold',
      title: 'GET entity by id, uncached (each id read once)',
      ceilings: ['ceiling-driver-read'],
      async run(bench) {
        // As many requests as there are ids left, not a duration: a second pass would be cached.
        const cold = bench.ids.slice(100);
        const next = cycle(cold);
        return httpLoad({ url: bench.base, connections: bench.connections, amount: cold.length, headers: auth(bench), next: () => ({ path: `/api/${db(bench)}/entity/${next()}` }), expect: [200], meter: bench.meter });
      },
    },
    {
      id: 'ceiling-driver-insert',
      title: 'insertOne of a stored review document through the driver',
      async run(bench) {
        // The document is the application's (checked and materialised as a create would, by
        // `entityBuilder`), encoded by the store's codec; only the insert is the driver's.
        const record = (await bench.store.registry.database(db(bench)))!;
        const books = bench.books.slice(0, CEILING_BOOKS);
        const build = await entityBuilder(bench.app, tenantOf(bench.store, record, bench.world.owner, 60_000), books);
        const nextBook = cycle(books);
        const collection = entityCollection(bench);
        return await driverLoad(bench.connections, bench.duration, async () => collection.insertOne(toDocument(await build({ values: reviewValues(bench, nextBook()) }), 1)));
      },
    },
    {
      id: 'create',
      title: 'POST entity (a review with a reference)',
      ceilings: ['ceiling-driver-insert'],
      async run(bench) {
        const nextBook = cycle(bench.books);
        return timedApiLoad(bench, () => ({ method: 'POST', path: `/api/${db(bench)}/entity`, body: JSON.stringify(reviewValues(bench, nextBook())) }), [201]);
      },
    },
    {
      id: 'create-plain',
      title: 'POST entity (an author: a name, no reference)',
      async run(bench) {
        let n = 0;
        const author = () => [
          { type: '_type', reference: bench.world.types.author },
          { type: 'name', string: `Load Author ${++n}` },
        ];
        return timedApiLoad(bench, () => ({ method: 'POST', path: `/api/${db(bench)}/entity`, body: JSON.stringify(author()) }), [201]);
      },
    },
    {
      id: 'schema',
      title: 'GET the schema (types and definitions: what the SDK reads once)',
      async run(bench) {
        return timedApiLoad(bench, () => ({ path: `/api/${db(bench)}/schema` }), [200]);
      },
    },
    {
      id: 'ceiling-driver-update',
      title: "findOne by _id, then a compare-and-set replaceOne of the same document through the driver (distinct books)",
      async run(bench) {
        // What adding a value needs of the engine at least: read the entity, write it back if its
        // version has not moved — as the store does it (EntityCollection.commit): with `{_id, __v}`
        // where the engine serves that from its key, else with the version read by `_id` first.
        const lone = (await bench.store.keyLookups()) === 'lone-id';
        const collection = entityCollection(bench);
        const next = cycle(bench.books);
        return driverLoad(bench.connections, bench.duration, async () => {
          const _id = new ObjectId(next());
          const document = (await collection.findOne({ _id }))!;
          const version = document.__v as number;
          if (lone && (await collection.findOne({ _id }, { projection: { __v: 1 } }))?.__v !== version) return;
          await collection.replaceOne(lone ? { _id } : { _id, __v: version }, { ...document, __v: version + 1 });
        });
      },
    },
    {
      id: 'add-value',
      title: 'POST a value to an existing entity (distinct books)',
      ceilings: ['ceiling-driver-update'],
      async run(bench) {
        const next = cycle(bench.books);
        return timedApiLoad(bench, () => ({ method: 'POST', path: `/api/${db(bench)}/entity/${next()}`, body: JSON.stringify([{ type: 'tag', string: 'benchmarked' }]) }), [200]);
      },
    },
  ];
}

/**
 * What needs a secondary index: the signed-URL GET (a value found by its id, `__vids`), the five
 * list queries and the three `q` searches. A fixed number of requests each, last: on an engine
 * that scans for them (FerretDB) each takes as long as reading the whole collection.
 */
export function listScenarios(world: World): Scenario[] {
  const db = (bench: Bench) => bench.world.db;
  return [
    {
      id: 'definitions-list',
      title: 'the definitions as an uncached list (one of three lists the SDK would need without /schema)',
      async run(bench) {
        const record = (await bench.store.registry.database(db(bench)))!;
        return httpLoad({
          url: bench.base,
          connections: Math.min(bench.connections, bench.listRequests),
          amount: Math.max(bench.listRequests, 5 * bench.connections),
          headers: auth(bench),
          meter: bench.meter,
          // POST /entity/query: never served from the response cache, as a first read is not.
          next: () => ({ method: 'POST', path: `/api/${db(bench)}/entity/query`, body: JSON.stringify({ '_type.reference': record.meta.property, limit: '1000' }) }),
          expect: [200],
        });
      },
    },
    {
      id: 'signed-url',
      title: 'GET a file value (signs a download URL)',
      async run(bench) {
        const values = await fileValues(bench, 20);
        const next = cycle(values);
        return httpLoad({
          url: bench.base,
          connections: Math.min(bench.connections, bench.listRequests),
          amount: Math.max(bench.listRequests, 5 * bench.connections),
          headers: auth(bench),
          meter: bench.meter,
          next: () => ({ path: `/api/${db(bench)}/property/${next()}` }),
          expect: [200],
        });
      },
    },
    {
      id: 'G1',
      title: 'reviews of the most reviewed book counted by rating (a grouped list: one aggregate)',
      async run(bench) {
        const query = new URLSearchParams([['_type.reference', bench.world.types.review], ['book.reference', bench.world.popularBook], ['group', 'rating.number']]).toString();
        return pagedLists(bench, query);
      },
    },
    ...benchQueries(world).map((benchQuery): Scenario => ({
      id: benchQuery.id,
      title: benchQuery.title,
      async run(bench) {
        return pagedLists(bench, queryString(benchQuery));
      },
    })),
  ];
}

function reviewValues(bench: Bench, book: string): ValueInput[] {
  return [
    { type: '_type', reference: bench.world.types.review },
    { type: 'rating', number: 1 + Math.floor(Math.random() * 5) },
    { type: 'book', reference: book },
    { type: 'text', string: 'Written by the load benchmark: a short review of a long book.' },
  ];
}

/** POSTs through the API and returns the response body; throws on an unexpected status. */
export async function api(bench: Bench, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${bench.base}/api/${bench.world.db}${path}`, { method, headers: auth(bench), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A type with one file property, and `count` entities each holding one file value; their value ids. */
async function fileValues(bench: Bench, count: number): Promise<string[]> {
  const type = (await api(bench, 'POST', '/entity', [
    { type: '_type', reference: bench.world.meta.entity },
    { type: 'name', string: 'attachment' },
  ]))._id as string;
  await api(bench, 'POST', '/entity', [
    { type: '_type', reference: bench.world.meta.property },
    { type: '_parent', reference: type },
    { type: 'name', string: 'file' },
    { type: 'type', string: 'file' },
  ]);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await api(bench, 'POST', '/entity', [
      { type: '_type', reference: type },
      { type: 'file', filename: `report-${i}.pdf`, filesize: 1024, filetype: 'application/pdf' },
    ]);
    ids.push((created.properties as Record<string, { _id: string }[]>).file![0]!._id);
  }
  return ids;
}
