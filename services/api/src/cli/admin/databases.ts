import { listDatabases, type DatabaseSummary } from '@entia/entities';
import { ObjectStore } from '@entia/files';
import type { AdminCommand } from './command';
import { configOf, exactly, guarded, helpRequested, openStore, parse } from './support';

const bytes = (n: number | undefined) => (n === undefined ? 'unknown' : n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${(n / 1024 ** 3).toFixed(2)} GiB`);

function table(rows: DatabaseSummary[]): string {
  const head = ['database', 'entities', 'history', 'storage', 'objects', 'object bytes', 'created', 'state'];
  const body = rows.map((row) => [
    row.name,
    String(row.entities),
    String(row.history),
    bytes(row.storageBytes),
    String(row.objects.count),
    bytes(row.objects.bytes),
    row.createdAt,
    row.deleting ? `being deleted since ${row.deleting}` : 'served',
  ]);
  const widths = head.map((title, i) => Math.max(title.length, ...body.map((cells) => cells[i]!.length)));
  return [head, ...body].map((cells) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

/** `databases [--json]`: every database with its counts, its storage size and its file objects. */
export const databasesCommand: AdminCommand = {
  name: 'databases',
  summary: 'list every database with entity and history counts, storage size and file objects',
  usage: 'usage: entia-admin databases [--json]\n  storage: what the engine reports (dbStats), "unknown" when it does not; objects: under <db>/ in the bucket',
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { json: { type: 'boolean', default: false } });
      if (helpRequested(this, io, values)) return 0;
      exactly(positionals, 0, '');
      const config = configOf(io);
      const store = await openStore(config, io);
      try {
        const rows = await listDatabases(store, ObjectStore.fromSettings(config));
        io.out.write(values.json ? `${JSON.stringify(rows)}\n` : rows.length === 0 ? 'no databases\n' : `${table(rows)}\n`);
        return 0;
      } finally {
        await store.close();
      }
    });
  },
};
