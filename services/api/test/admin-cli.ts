import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Document } from 'mongodb';
import type { Store } from '@entia/store';
import { COMMANDS } from '../src/cli/admin/commands';
import { dispatch } from '../src/cli/admin/dispatch';
import { stackEnv } from './processes';

/** The built `entia-admin`, as the image and the operator run it. */
export const ADMIN_CLI = join(__dirname, '../dist/cli/admin.js');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `entia-admin <args>` as its own process with the test stack's environment and `env`
 * (MONGODB_CONTROL_DB, REDIS_PREFIX… of the test), stdin closed (not a terminal).
 */
export function runAdmin(args: string[], env: Record<string, string>): Promise<AdminRun> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [ADMIN_CLI, ...args], { env: stackEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end();
  });
}

/**
 * The same, in this process (`dispatch`, as admin.ts calls it): for the many cases where a process
 * of its own adds nothing but its start-up time. `input` is what is typed at a terminal, if any.
 */
export async function runAdminHere(args: string[], env: Record<string, string>, input?: string): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) => new Writable({ write: (chunk, _encoding, done) => (append(String(chunk)), done()) });
  const code = await dispatch(COMMANDS, args, {
    out: sink((text) => (stdout += text)),
    err: sink((text) => (stderr += text)),
    in: Readable.from(input === undefined ? [] : [input]),
    interactive: input !== undefined,
    env: stackEnv(env),
  });
  return { code, stdout, stderr };
}

/**
 * Leaves a database as the code before issue 22 did: no schema version record, no index but
 * `_id` (the API built them in the background at start), and every stored value repeating its
 * property's name as `type` (before issue 21's codec). `entia-admin migrate` is what mends it.
 */
export async function makeOldSchema(store: Store, db: string): Promise<void> {
  await store.control.collection('schema').deleteMany({});
  for (const database of [store.control, store.database(db)]) {
    for (const { name } of await database.listCollections({}, { nameOnly: true }).toArray()) await database.collection(name).dropIndexes();
  }
  const entities = store.database(db).collection('entity');
  for (const document of await entities.find().toArray()) {
    const typed: Record<string, Document[]> = {};
    for (const [name, values] of Object.entries(document)) {
      if (name !== '_id' && !name.startsWith('__') && Array.isArray(values)) typed[name] = values.map((value: Document) => ({ ...value, type: name }));
    }
    await entities.updateOne({ _id: document._id }, { $set: typed });
  }
}
