/**
 * A command trace, preloaded into a service by the load benchmark's `--trace <dir>`
 * (`node --enable-source-maps --require <this file>`): every MongoDB command the process sends is
 * appended to ENTIA_COMMAND_TRACE_FILE as one JSON line with its time, name, collection, the names
 * (never the values) of its filter's fields, and the frames of this repository's code that sent it
 * (V8's async stack trace, source-mapped). `trace-summary.ts` groups the lines per scenario. The
 * client must monitor commands (MONGODB_COMMAND_METRICS, which the benchmark sets). A benchmark
 * tool: it costs a stack trace per command, far too much for production.
 */
import { appendFileSync } from 'node:fs';
import { MongoClient, type CommandStartedEvent } from 'mongodb';

export interface TracedCommand {
  /** Epoch milliseconds. */
  at: number;
  command: string;
  collection?: string;
  /** The filter's field names (a find's, a count's, an update's or delete's first statement's). */
  fields?: string[];
  /** Innermost first: `function (path:line)` of this repository's code, `node_modules` left out. */
  frames: string[];
}

// The checkout whose services run (set by `startService`); frames outside it are the driver's or Node's.
const ROOT = process.env.ENTIA_COMMAND_TRACE_ROOT ?? process.cwd();
const FRAME = /^\s*at (?:async )?(?:(.+?) \()?(.+?):(\d+):\d+\)?$/;

/** This repository's frames of a stack, innermost first, as `function (path:line)`. */
export function appFrames(stack: string, root = ROOT): string[] {
  const frames: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const match = FRAME.exec(line);
    if (!match) continue;
    const [, fn, file, lineNo] = match;
    if (!file!.startsWith(root + '/') || file!.includes('/node_modules/') || /command-trace\.[jt]s$/.test(file!)) continue;
    frames.push(`${fn ?? '<anonymous>'} (${file!.slice(root.length + 1)}:${lineNo})`);
  }
  return frames;
}

/** The filter whose field names a command's line shows. */
function filterOf(command: CommandStartedEvent['command']): unknown {
  if (command.filter !== undefined) return command.filter;
  if (command.query !== undefined) return command.query;
  const first = (command.updates ?? command.deletes)?.[0] as { q?: unknown } | undefined;
  if (first?.q !== undefined) return first.q;
  const match = (command.pipeline as { $match?: unknown }[] | undefined)?.find((stage) => stage.$match !== undefined);
  return match?.$match;
}

/** A filter's field names, through `$and`, `$or` and `$nor`, sorted and once each. */
export function fieldNames(filter: unknown): string[] {
  const names = new Set<string>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) value.forEach(visit);
      else names.add(key);
    }
  };
  visit(filter);
  return [...names].sort();
}

export function traced(event: Pick<CommandStartedEvent, 'commandName' | 'command'>, stack: string, at = Date.now(), root = ROOT): TracedCommand {
  const target = event.command[event.commandName];
  const filter = filterOf(event.command);
  return {
    at,
    command: event.commandName,
    ...(typeof target === 'string' ? { collection: target } : {}),
    ...(filter && typeof filter === 'object' ? { fields: fieldNames(filter) } : {}),
    frames: appFrames(stack, root),
  };
}

/** From now on, every command of every MongoClient that connects is appended to `file`. */
export function traceCommands(file: string, root = ROOT): void {
  // Deep enough to reach the route handler through the driver's own frames.
  Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 80);
  const connect = MongoClient.prototype.connect;
  const watched = new WeakSet<MongoClient>();
  MongoClient.prototype.connect = function (this: MongoClient) {
    if (!watched.has(this)) {
      watched.add(this);
      this.on('commandStarted', (event) => {
        if (event.commandName === 'hello' || event.commandName === 'ping') return;
        appendFileSync(file, JSON.stringify(traced(event, new Error().stack ?? '', Date.now(), root)) + '\n');
      });
    }
    return connect.call(this);
  } as typeof connect;
}

if (process.env.ENTIA_COMMAND_TRACE_FILE) traceCommands(process.env.ENTIA_COMMAND_TRACE_FILE);
