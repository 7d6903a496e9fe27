/**
 * Query benchmark (not a test): seeds a tenant database with entities of three types and measures
 * six list queries and three `q` searches through `EntityCollection.list` (the store call the API
 * makes for GET /api/{db}/entity) and through the API's `listEntities` (which adds the definitions
 * lookup), reports p50/p95/max, the index MongoDB would use and what the engine's `explain` says.
 *
 *   npm run bench:query                      (sources .stack/env; 100 000 entities; see --help)
 *   npm run bench:query -- --seed-only --db bench_x   then   npm run bench:query -- --reuse --db bench_x
 */
import { callerTags, parseListQuery, rawQueryOf, type Caller } from '@entia/domain';
import { EntityCollection, SORT_INDEX_CAP, SORT_INDEX_PREFIX, compileFilter, compilePage, compileProjection, compileSort, type Store } from '@entia/store';
import { compileSchema, listEntities } from '@entia/entities';
import { BSON, type Document } from 'mongodb';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { explainCount, explainFind } from './explain';
import { fieldsOf, matches } from './match';
import { measure } from './measure';
import { readOptions, type BenchOptions } from './options';
import { keysetVerdict, mongoPlan, type IndexSpec } from './plan';
import { benchQueries, queryString } from './queries';
import { renderMarkdown } from './report';
import type { BenchResult, QueryResult } from './results';
import { machine } from './machine';
import { dropBenchDatabase, loadWorld, seed, tenantOf, type SeedReport, type World } from './seed';
import { openBenchApp } from './app';

const { EJSON } = BSON;
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** The indexes the collection has (those `ensureIndexes` created), as the engine lists them. */
async function indexesOf(db: ReturnType<Store['database']>): Promise<IndexSpec[]> {
  const listed = await db.collection('entity').listIndexes().toArray();
  return listed.map((index) => ({
    name: String(index.name),
    key: Object.entries(index.key as Document).map(([field, dir]) => [field, Number(dir)] as [string, number]),
    ...(index.unique ? { unique: true } : {}),
  }));
}

function notesFor(result: Omit<QueryResult, 'notes'>, options: BenchOptions, indexes: IndexSpec[], total: number): string[] {
  const notes: string[] = [];
  const { find, count } = result.engine;
  if (find.filterPushdown === false || count.filterPushdown === false) {
    notes.push(
      `FerretDB cannot push this filter down (it pushes only a lone \`{_id: <id>}\`): SQLite reads all ${total} documents ` +
        `(\`${find.sqlPlan?.join('; ') ?? 'SCAN'}\`), FerretDB filters${find.sortPushdown === false ? ', sorts' : ''} and limits them in Go; ` +
        'the `countDocuments` beside it scans them all again.',
    );
  }
  const mongo = result.mongo;
  if (mongo.wholeCollection.find || mongo.wholeCollection.count) {
    const which = [mongo.wholeCollection.find ? 'the find' : '', mongo.wholeCollection.count ? 'the count' : ''].filter(Boolean).join(' and ');
    const best = [...mongo.unindexed].sort((a, b) => a.docs - b.docs)[0];
    notes.push(
      `**Needs a whole-collection scan on MongoDB** (${which}): no index bounds the filter to less than 90 % of the collection for this caller.` +
        (best ? ` Most selective unindexed predicate: \`${best.text}\` (${best.docs} documents).` : ''),
    );
  }
  for (const unindexed of mongo.unindexed) {
    if (unindexed.path.endsWith('.reference') && indexes.some((i) => i.key[0]?.[0] === '__refs')) {
      notes.push(
        `\`${unindexed.path}\` has no index of its own; the existing \`references\` index (\`__refs\`) would serve it if the compiler also emitted ` +
          `\`{__refs: <id>}\` (or \`{__refs: {$in: ids}}\`) beside it (${unindexed.docs} documents match, against ${mongo.count.docsExamined ?? total} examined now).`,
      );
    }
  }
  if (result.cursor && !result.cursor.keyset.served) {
    notes.push(
      `Cursor pages: ${result.cursor.keyset.text}. The API builds such an index on a sort's first use (\`SortIndexes\`, up to ${SORT_INDEX_CAP} per database): ` +
        'this database is at that cap, or the build failed.',
    );
  }
  if (result.store.p95 > options.serviceTimeoutMs) {
    notes.push(`p95 exceeds the service's query time limit (MONGODB_TIMEOUT_MS = ${options.serviceTimeoutMs} ms): through the API this query answers 503.`);
  }
  return notes;
}

async function main(): Promise<void> {
  const options = readOptions();
  const startedAt = new Date();
  const app = openBenchApp({ controlDb: options.controlDb, timeoutMs: 10_000, reachMs: 10_000 });
  const { store } = app;
  let dropped = false;
  let created = false;
  try {

    if (options.drop) {
      await loadWorld(store, options.db); // refuses a database that is not a benchmark data set
      await dropBenchDatabase(store, options.db);
      log(`dropped ${options.db}`);
      return;
    }
    let world: World;
    let seeding: SeedReport | undefined;
    if (options.reuse) {
      ({ world, seeding } = await loadWorld(store, options.db));
      // A benchmark data set (it has the bench_world document): this run drops it unless --keep.
      created = true;
      if (!options.keep) cleanup = () => dropBenchDatabase(store, options.db);
      log(`reusing ${options.db} (${world.size} entities, seeded earlier in ${(seeding!.totalMs / 1000).toFixed(1)} s)`);
    } else {
      log(`seeding ${options.size} entities into ${options.db} (batches of ${options.batch})`);
      ({ world, report: seeding } = await seed(app, {
        db: options.db,
        size: options.size,
        batch: options.batch,
        seed: options.seed,
        maxTimeMS: options.timeoutMs,
        // Only a database this run created is ever dropped (never one that existed before).
        onCreated: () => {
          created = true;
          if (!options.keep) cleanup = () => dropBenchDatabase(store, options.db);
        },
      }));
      log(`seeded in ${(seeding.totalMs / 1000).toFixed(1)} s`);
      if (options.seedOnly) {
        const stats = seeding.timings.map((t) => `${t.type} ${t.entities} (values ${(t.buildMs / 1000).toFixed(1)} s, import ${(t.insertMs / 1000).toFixed(1)} s)`).join('; ');
        process.stdout.write(`${JSON.stringify({ db: options.db, seeding, world })}\n`);
        log(`kept ${options.db}: ${stats}; measure with --reuse --db ${options.db}, remove with --drop --db ${options.db}`);
        return;
      }
    }
    const host = await machine(store, options.db);
    log(`engine: ${host.engine}; ${host.nproc} CPUs, ${host.memoryGiB} GiB, Node ${host.node}`);

    const record = (await store.registry.database(options.db))!;
    const personId = options.caller === 'owner' ? world.owner : options.caller === 'reader' ? world.reader : undefined;
    const caller: Caller = personId ? { personId } : {};
    const tags = callerTags(caller);
    const tenant = tenantOf(store, record, personId, options.timeoutMs);
    const entities = tenant.entities;
    // The API reads the definitions from its schema cache: loaded once here, as a warm cache has them.
    const schema = compileSchema(await entities.ofType(record.meta.entity), await entities.definitions(record.meta.property));
    const schemas = { of: async () => schema };
    const db = store.database(options.db);
    const collection = db.collection('entity');
    // The lists' first use, as the API makes it: each sort no index gives asks for its sort index
    // (`SortIndexes`), built in the background; the analysis reads the indexes once they are built.
    const queries = benchQueries(world);
    const asked = queries.map((query) => store.sortIndexes.note(options.db, parseListQuery(rawQueryOf(queryString(query))).sort));
    await store.sortIndexes.settled(options.db);
    const indexes = await indexesOf(db);
    log(`sort indexes: ${queries.map((query, n) => `${query.id} ${asked[n]}`).join(', ')}; the database has ${indexes.filter((index) => index.name.startsWith(SORT_INDEX_PREFIX)).length}`);

    // One projected scan for the index analysis (see match.ts): counted here, not by the server.
    const fields = new Set<string>();
    for (const query of queries) fieldsOf(compileFilter(parseListQuery(rawQueryOf(queryString(query))), tags) as Document, fields);
    // The cursor pages' keysets read the sort keys.
    fields.add('__sort');
    const scanStarted = performance.now();
    const documents = await collection
      .find({}, { projection: Object.fromEntries([...fields].map((f) => [f, 1])), maxTimeMS: options.timeoutMs })
      .toArray();
    const total = documents.length;
    log(`fetched ${documents.length} documents (fields ${[...fields].join(', ')}) for the index analysis in ${((performance.now() - scanStarted) / 1000).toFixed(1)} s`);
    const memo = new Map<string, number>();
    const countDocs = async (condition: Document) => {
      const key = EJSON.stringify(condition);
      if (!memo.has(key)) memo.set(key, documents.filter((document) => matches(document, condition)).length);
      return memo.get(key)!;
    };

    const results: QueryResult[] = [];
    for (const query of queries) {
      const text = queryString(query);
      log(`${query.id} ${text}`);
      const raw = rawQueryOf(text);
      const parsed = parseListQuery(raw);
      const filter = compileFilter(parsed, tags) as Document;
      const sort = compileSort(parsed.sort) as Document;
      const projection = compileProjection(parsed.props, parsed.sort);

      const engine = {
        // As the store sends it: one more than the page, to know whether a next page follows.
        find: await explainFind(db, { filter, sort, projection, skip: parsed.skip, limit: parsed.limit + 1 }),
        count: await explainCount(db, filter),
      };
      const mongo = await mongoPlan(indexes, filter, sort, parsed.limit, total, countDocs);

      const budgetMs = options.budgetSeconds * 1000;
      // The count and page size come from the last measured run (no extra run: on FerretDB each costs full scans).
      let last: Awaited<ReturnType<EntityCollection['list']>> = { entities: [], count: -1 };
      const storeLatency = await measure(async () => (last = await entities.list(parseListQuery(raw), tags)), {
        iterations: options.iterations,
        warmup: options.warmup,
        budgetMs,
        minIterations: options.minIterations,
      });
      log(`${query.id} store.list p50 ${storeLatency.p50.toFixed(0)} ms, p95 ${storeLatency.p95.toFixed(0)} ms (${storeLatency.iterations} runs)`);
      const api =
        options.apiIterations > 0
          ? await measure(() => listEntities({ schemas }, tenant, parseListQuery(raw)), {
              iterations: options.apiIterations,
              warmup: Math.min(1, options.warmup),
              budgetMs,
              minIterations: Math.min(options.minIterations, options.apiIterations),
            })
          : undefined;
      if (api) log(`${query.id} listEntities p50 ${api.p50.toFixed(0)} ms (${api.iterations} runs)`);
      const analysedCount = await countDocs(filter);
      if (analysedCount !== last.count) log(`${query.id}: WARNING the analysis counts ${analysedCount} matches, the server ${last.count}`);

      // The next page by cursor, as a client walking with `after` and `count=none` asks for it.
      let cursor: QueryResult['cursor'];
      if (last.next) {
        const next = { ...parseListQuery(raw), count: 'none' as const, after: last.next };
        const page = compilePage(next, tags) as Document;
        const cursorPlan = await mongoPlan(indexes, page, sort, parsed.limit, total, countDocs);
        let returned = 0;
        const cursorLatency = await measure(async () => (returned = (await entities.list(next, tags)).entities.length), {
          iterations: options.iterations,
          warmup: options.warmup,
          budgetMs,
          minIterations: options.minIterations,
        });
        log(`${query.id} next page (after, count=none) p50 ${cursorLatency.p50.toFixed(0)} ms (${cursorLatency.iterations} runs)`);
        cursor = {
          filter: EJSON.serialize(page, { relaxed: true }),
          returned,
          store: cursorLatency,
          mongo: cursorPlan,
          keyset: keysetVerdict(cursorPlan, sort),
          engine: await explainFind(db, { filter: page, sort, projection, skip: 0, limit: parsed.limit + 1 }),
        };
      }

      const result: Omit<QueryResult, 'notes'> = {
        id: query.id,
        kind: query.kind,
        title: query.title,
        query: text,
        compiled: {
          filter: EJSON.serialize(filter, { relaxed: true }),
          sort,
          projection,
          skip: parsed.skip,
          limit: parsed.limit,
        },
        count: last.count ?? -1,
        analysedCount,
        returned: last.entities.length,
        store: storeLatency,
        ...(api ? { api } : {}),
        mongo,
        engine,
        ...(cursor ? { cursor } : {}),
      };
      results.push({ ...result, notes: notesFor(result, options, indexes, total) });
    }

    if (created && !options.keep) {
      await dropBenchDatabase(store, options.db);
      dropped = true;
      cleanup = undefined;
      log(`dropped ${options.db}`);
    }

    const { mongodbUrl, ...rest } = options;
    const bench: BenchResult = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { ...host, loadAverage: { ...host.loadAverage, end: loadavg().map((l) => Math.round(l * 100) / 100) } },
      options: { ...rest, mongodb: redactUrl(mongodbUrl) },
      world,
      collection: { documents: total, indexes },
      ...(seeding ? { seeding } : {}),
      reused: options.reuse,
      caller: { name: options.caller, tags },
      queries: results,
      dropped,
    };
    const markdown = renderMarkdown(bench);
    const stamp = startedAt.toISOString().replace(/:/g, '').replace(/\.\d+Z$/, 'Z');
    const outDir = resolve(options.outDir);
    mkdirSync(outDir, { recursive: true });
    const base = resolve(outDir, `query-${stamp}`);
    writeFileSync(`${base}.md`, markdown);
    writeFileSync(`${base}.json`, `${JSON.stringify(bench, null, 2)}\n`);
    process.stdout.write(markdown);
    log(`wrote ${base}.md and ${base}.json`);
  } finally {
    if (created && !dropped && !options.keep) {
      await dropBenchDatabase(store, options.db).catch((error) => log(`could not drop ${options.db}: ${(error as Error).message}`));
      log(`dropped ${options.db}`);
    }
    await app.close();
  }
}

/** Drops the database this run created when the run is interrupted. */
let cleanup: (() => Promise<void>) | undefined;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    log(`${signal}: stopping${cleanup ? ', dropping the benchmark database first' : ''}; again to abort at once`);
    void (cleanup?.() ?? Promise.resolve()).catch((error) => log(`could not drop it: ${(error as Error).message}`)).finally(() => process.exit(130));
  });
}

main().catch((error) => {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
});
