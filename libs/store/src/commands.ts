import type { Store } from './connection';

/** What a command does to the data: counted apart in the load benchmark's cost per request. */
export type CommandKind = 'read' | 'write' | 'probe' | 'other';

const KINDS: Readonly<Record<string, CommandKind>> = {
  find: 'read',
  getMore: 'read',
  aggregate: 'read',
  count: 'read',
  distinct: 'read',
  insert: 'write',
  update: 'write',
  delete: 'write',
  findAndModify: 'write',
  // A readiness probe or a handshake, not a request's work (the driver's heartbeats are no commands at all).
  hello: 'probe',
  isMaster: 'probe',
  ismaster: 'probe',
  ping: 'probe',
};

/**
 * The command names counted under their own label; any other name is `other`. The names a client
 * may send are the server's to define: a label per name seen would be an unbounded label set.
 */
export const COUNTED_COMMANDS: ReadonlySet<string> = new Set([
  ...Object.keys(KINDS),
  'killCursors',
  'endSessions',
  'createIndexes',
  'listIndexes',
  'dropIndexes',
  'listCollections',
  'listDatabases',
  'create',
  'drop',
  'dropDatabase',
  'buildInfo',
  'serverStatus',
  'dbStats',
  'collStats',
  'commitTransaction',
  'abortTransaction',
]);

/** The label a command is counted under: its name when allowlisted, else `other`. */
export function commandLabel(name: string): string {
  return COUNTED_COMMANDS.has(name) ? name : 'other';
}

export function commandKind(name: string): CommandKind {
  return Object.hasOwn(KINDS, name) ? KINDS[name]! : 'other';
}

/** The counter both services register (prom-client's `Counter` options, less the registry). */
export const MONGODB_COMMANDS_METRIC = {
  name: 'mongodb_commands_total',
  help: 'MongoDB commands sent, by command name (names outside a fixed list count as "other"; heartbeats are not commands).',
  labelNames: ['command'] as const,
};

/** Counts every command `store` sends on `counter` (a prom-client `Counter` built from `MONGODB_COMMANDS_METRIC`); returns the way to stop. */
export function countCommands(store: Store, counter: { inc(labels: { command: string }): void }): () => void {
  return store.onCommand((name) => counter.inc({ command: commandLabel(name) }));
}
