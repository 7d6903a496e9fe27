/**
 * History storage benchmark (not a test): what one recorded change costs on disk. Creates a
 * database, imports `--size` books (title, pages, a tag) through the application's `importEntities`,
 * then overwrites each title once, adds a tag and deletes one, through the use cases the API runs
 * (`addValues`, `deleteValue`), so every history row is one the service would record. Reports the
 * BSON size of the rows by kind and what the engine says the collection takes, then drops the
 * database.
 *
 *   npm run build && npx tsc -b bench && (set -a; . ./.stack/env; node bench/dist/history-size.js --size 500)
 */
import { addValues, createDatabase, createEntity, deleteValue, importEntities, type Tenant } from '@entia/entities';
import { BSON, type Document } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { readArgs } from './args';
import { openBenchApp } from './app';
import { tenantOf } from './seed';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function sizes(documents: Document[]): string {
  if (documents.length === 0) return '–';
  const bytes = documents.map((document) => BSON.calculateObjectSize(document)).sort((a, b) => a - b);
  const mean = bytes.reduce((sum, n) => sum + n, 0) / bytes.length;
  return `${documents.length} rows, mean ${mean.toFixed(0)} B (min ${bytes[0]}, max ${bytes[bytes.length - 1]})`;
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2), process.env, { size: 'string' }, 'history-size [--size N]: what one history row costs (see the file header)');
  const size = args.integer('size', 500, 1);
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is required (source .stack/env)');
  const deps = openBenchApp({ controlDb: process.env.MONGODB_CONTROL_DB ?? 'entia_control', timeoutMs: 60_000, reachMs: 5000 });
  const { store } = deps;
  const created = await createDatabase(store, `bench_h_${randomBytes(4).toString('hex')}`, 'Owner');
  try {
    const record = (await store.registry.database(created.db))!;
    const tenant: Tenant = tenantOf(store, record, created.personId, 60_000);
    const type = (await createEntity(deps, tenant, [{ type: '_type', reference: created.types.entity }, { type: 'name', string: 'book' }]))._id;
    for (const [name, valueType, list] of [['title', 'string', false], ['pages', 'number', false], ['tag', 'string', true]] as const) {
      const flags = list ? [{ type: 'list', boolean: true }] : [];
      await createEntity(deps, tenant, [{ type: '_type', reference: created.types.property }, { type: '_parent', reference: type }, { type: 'name', string: name }, { type: 'type', string: valueType }, ...flags]);
    }
    const inputs = Array.from({ length: size }, (_, i) => ({
      values: [{ type: '_type', reference: type }, { type: 'title', string: `A book called ${i}` }, { type: 'pages', number: 100 + i }, { type: 'tag', string: 'fiction' }],
    }));
    const ids = await importEntities(deps, tenant, inputs);
    log(`imported ${ids.length}`);
    for (const id of ids) {
      await addValues(deps, tenant, id, [{ type: 'title', string: `A better title for ${id}` }, { type: 'tag', string: 'classic' }]);
      const tag = (await tenant.entities.get(id))!.entity.properties.tag![0]!;
      await deleteValue(deps, tenant, tag._id);
    }
    log('changed each once');
    const history = store.database(created.db).collection('history');
    const rows = await history.find({}).toArray();
    const where = (test: (row: Document) => boolean) => rows.filter(test);
    const lines = [
      `entities: ${ids.length}; history rows: ${rows.length} (${(rows.length / ids.length).toFixed(1)} per entity)`,
      `all rows: ${sizes(rows)}`,
      `a value added (new only): ${sizes(where((row) => row.new && !row.old && row.type !== '_created'))}`,
      `_created: ${sizes(where((row) => row.type === '_created'))}`,
      `a value replaced (old and new): ${sizes(where((row) => row.new && row.old))}`,
      `a value deleted (old only): ${sizes(where((row) => row.old && !row.new))}`,
    ];
    const stats = await store.database(created.db).command({ collStats: 'history' }).catch((): Document => ({}));
    lines.push(`collStats: size ${stats.size ?? '?'} B, storageSize ${stats.storageSize ?? '?'} B, totalIndexSize ${stats.totalIndexSize ?? '?'} B`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await store.database(created.db).dropDatabase();
    await store.registry.unregister(created.db);
    await deps.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
