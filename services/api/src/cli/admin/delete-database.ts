import { cacheRedisUrl } from '@entia/config';
import { checkedDatabaseName, deleteDatabase } from '@entia/entities';
import { ObjectStore } from '@entia/files';
import { createRedis } from '@entia/jobs';
import { Store } from '@entia/store';
import { createInterface } from 'node:readline/promises';
import type { AdminCommand, AdminIo } from './command';
import { UsageError, answering, configOf, exactly, guarded, helpRequested, mongodb, parse } from './support';

/** Asks the person at the terminal to type the name; true when they did. */
async function confirmed(io: AdminIo, name: string): Promise<boolean> {
  const prompt = createInterface({ input: io.in, output: io.err, terminal: false });
  try {
    const answer = await prompt.question(`This deletes database "${name}" for good: its entities, history, keys and files. Type its name to go on: `);
    return answer.trim() === name;
  } finally {
    prompt.close();
  }
}

/** `delete-database <db>`: every trace of a database, confirmed; re-runnable after a crash at any step. */
export const deleteDatabaseCommand: AdminCommand = {
  name: 'delete-database',
  summary: 'delete a database: data, history, credentials, pending work, cache keys and file objects',
  usage:
    'usage: entia-admin delete-database <db> [--yes]\n' +
    '  asks to type the name on a terminal; --yes is required otherwise. Cut short? Run it again: it resumes.',
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { yes: { type: 'boolean', default: false } });
      if (helpRequested(this, io, values)) return 0;
      const [name] = exactly(positionals, 1, 'the database name');
      const config = configOf(io);
      const store = Store.fromSettings(config);
      try {
        checkedDatabaseName(store, name!);
        if (!values.yes) {
          if (!io.interactive) throw new UsageError('not a terminal: pass --yes to delete without a confirmation');
          if (!(await confirmed(io, name!))) {
            io.err.write('entia-admin delete-database: not confirmed; nothing deleted\n');
            return 1;
          }
        }
        await answering([mongodb(store)], config, io);
        const onError = () => undefined;
        // The queue's Redis and, when the cache has one of its own (CACHE_REDIS_URL), that one too.
        const urls = [...new Set([config.REDIS_URL, cacheRedisUrl(config) ?? config.REDIS_URL])];
        const redis = urls.map((url) => createRedis(url, 'command', onError, config.DEPENDENCY_TIMEOUT_MS));
        try {
          await deleteDatabase({ store, objects: ObjectStore.fromSettings(config), redis, redisPrefix: config.REDIS_PREFIX }, name!, (step, detail) =>
            io.out.write(`${step}: ${detail}\n`),
          );
        } finally {
          for (const client of redis) client.disconnect();
        }
        io.out.write(`Deleted database "${name}".\n`);
        return 0;
      } finally {
        await store.close();
      }
    });
  },
};
