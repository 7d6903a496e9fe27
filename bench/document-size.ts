/**
 * Document size benchmark (not a test): what one stored entity costs beside what the API sends for
 * it. Seeds the load benchmark's data set (`--size` entities, default 2 000: authors, books, reviews,
 * as the API would store them), then reads every entity document back and reports, per type, the
 * BSON bytes of its values and of each derived field (`__read`, `__q`, `__sort`, `__av`, …) against
 * the bytes of its JSON as GET /entity/{id} answers it. Every byte stored is decoded by FerretDB on
 * each scan and held in MongoDB's working set; the derived fields are what a change can shrink.
 *
 *   npm run bench:documents -- --size 2000
 */
import { presentEntity } from '@entia/domain';
import { fromDocument } from '@entia/store';
import { BSON, type Document } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { readArgs } from './args';
import { dropBenchDatabase, seed } from './seed';
import { openBenchApp } from './app';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** The fields of a stored entity reported apart; its property values are the rest. */
const FIELDS = ['_id', '__v', '__read', '__vids', '__refs', '__q', '__sort', '__av', '__w', '__outbox'] as const;

const size = (value: unknown) => BSON.calculateObjectSize({ v: value }) - BSON.calculateObjectSize({ v: null });

interface Tally {
  count: number;
  document: number;
  wire: number;
  values: number;
  fields: Record<string, number>;
}

function tally(documents: Document[]): Tally {
  const total: Tally = { count: documents.length, document: 0, wire: 0, values: 0, fields: Object.fromEntries(FIELDS.map((f) => [f, 0])) };
  for (const document of documents) {
    total.document += BSON.calculateObjectSize(document);
    total.wire += Buffer.byteLength(JSON.stringify({ entity: presentEntity(fromDocument(document).entity) }));
    for (const [name, value] of Object.entries(document)) {
      if ((FIELDS as readonly string[]).includes(name)) total.fields[name]! += size(value) + name.length + 2;
      else if (!name.startsWith('__')) total.values += size(value) + name.length + 2;
    }
  }
  return total;
}

function row(label: string, t: Tally): string {
  const mean = (n: number) => Math.round(n / Math.max(1, t.count));
  const derived = FIELDS.filter((f) => f !== '_id').map((f) => mean(t.fields[f]!));
  return `| ${label} | ${t.count} | ${mean(t.wire)} | ${mean(t.document)} | ${(t.document / Math.max(1, t.wire)).toFixed(2)} | ${mean(t.values)} | ${derived.join(' | ')} |`;
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2), process.env, { size: 'string' }, 'document-size [--size N]: bytes stored per entity against its wire size (see the file header)');
  const entities = args.integer('size', 2000, 10);
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is required (source .stack/env)');
  const app = openBenchApp({ controlDb: process.env.MONGODB_CONTROL_DB ?? 'entia', timeoutMs: 600_000, reachMs: 10_000 });
  const { store } = app;
  const db = `bench_d_${randomBytes(4).toString('hex')}`;
  let created = false;
  try {
    const { world } = await seed(app, { db, size: entities, batch: 1000, seed: 42, maxTimeMS: 600_000, onCreated: () => (created = true) });
    log(`seeded ${entities} entities into ${db}`);
    const documents = await store.database(db).collection('entity').find({}).toArray();
    const typeOf = (document: Document) => String((document._type as Document[] | undefined)?.[0]?.reference ?? '');
    const names = new Map(Object.entries(world.types).map(([name, id]) => [id, name]));
    const groups = new Map<string, Document[]>();
    for (const document of documents) {
      const name = names.get(typeOf(document)) ?? 'other (types, definitions, people)';
      groups.set(name, [...(groups.get(name) ?? []), document]);
    }
    const lines = [
      `Entities: ${documents.length} documents of the load benchmark's data set (seed 42). Bytes per entity, mean: its JSON as GET /entity/{id} answers it ("wire"), its BSON document, and the document's parts.`,
      '',
      `| type | entities | wire B | stored B | stored / wire | values B | ${FIELDS.filter((f) => f !== '_id').join(' | ')} |`,
      `|---|---:|---:|---:|---:|---:|${FIELDS.filter((f) => f !== '_id').map(() => '---:').join('|')}|`,
      ...[...groups].sort(([a], [b]) => a.localeCompare(b)).map(([name, group]) => row(name, tally(group))),
      row('**all**', tally(documents)),
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    if (created) await dropBenchDatabase(store, db);
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
