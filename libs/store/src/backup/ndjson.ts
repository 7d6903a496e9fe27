import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { BSON, type Document } from 'mongodb';
import { BackupError, type FileSummary } from './format';

/** A line longer than this is no document MongoDB could have stored (16 MiB of BSON, in canonical Extended JSON). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Names that must never become a key of a document read from an export: operators (`$…`, which
 * would turn an insert into something else on some engines), and the names that reach an object's
 * prototype when a parser or a later spread assigns them.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** One document a line, MongoDB Extended JSON (canonical: every BSON type survives the trip). */
export function toLine(document: Document): string {
  return `${BSON.EJSON.stringify(document, { relaxed: false })}\n`;
}

/**
 * Writes `documents` to `path` as NDJSON, waiting for the disk when it falls behind (never more
 * than a buffer in memory); resolves with what the manifest records of the file.
 */
export async function writeNdjson(path: string, documents: AsyncIterable<Document>): Promise<FileSummary> {
  const out = createWriteStream(path, { flags: 'wx' });
  const hash = createHash('sha256');
  let count = 0;
  let bytes = 0;
  try {
    for await (const document of documents) {
      const line = Buffer.from(toLine(document), 'utf8');
      hash.update(line);
      bytes += line.length;
      count += 1;
      if (!out.write(line)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return { count, bytes, sha256: hash.digest('hex') };
}

/** A key no imported document may hold, wherever it stands; undefined when there is none. */
function forbiddenKey(value: unknown, depth = 0): string | undefined {
  if (depth > 100) return '(nested more than 100 levels)';
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = forbiddenKey(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  // BSON values (ObjectId, Date, Int32, …) are made by the Extended JSON parser, not read as keys.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  for (const key of Object.keys(value)) {
    if (key.startsWith('$') || FORBIDDEN_KEYS.has(key) || key.includes('\u0000')) return key;
    const found = forbiddenKey((value as Record<string, unknown>)[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * One line of an export as a document: plain JSON first (refusing `__proto__` before anything can
 * assign it), then Extended JSON's types, then no operator or prototype key anywhere.
 */
export function parseLine(line: string, where: string): Document {
  let json: unknown;
  try {
    json = JSON.parse(line, (key, value: unknown) => {
      if (key === '__proto__') throw new BackupError(`${where}: the key "__proto__" is not allowed`);
      return value;
    });
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${where}: not a JSON document`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new BackupError(`${where}: not a JSON object`);
  let document: Document;
  try {
    document = BSON.EJSON.deserialize(json as Document, { relaxed: false }) as Document;
  } catch (error) {
    throw new BackupError(`${where}: not valid Extended JSON (${(error as Error).message.slice(0, 120)})`);
  }
  if (Object.getPrototypeOf(document) !== Object.prototype) throw new BackupError(`${where}: not a document`);
  const key = forbiddenKey(document);
  if (key !== undefined) throw new BackupError(`${where}: the key ${JSON.stringify(key.slice(0, 60))} is not allowed in an imported document`);
  return document;
}

/**
 * Reads an NDJSON file of an export a line at a time, hashing its bytes as they pass: yields each
 * line's document, then checks the file against its manifest entry (count, size, SHA-256). A
 * reader that stops early checks nothing: read to the end to verify.
 */
export async function* readNdjson(path: string, name: string, expected: FileSummary): AsyncGenerator<Document> {
  const hash = createHash('sha256');
  let bytes = 0;
  let count = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let stream;
  try {
    stream = createReadStream(path);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      let start = 0;
      for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, end));
        const line = Buffer.concat(pending).toString('utf8');
        pending = [];
        pendingBytes = 0;
        start = end + 1;
        count += 1;
        if (count > expected.count) throw new BackupError(`${name} holds more lines than its manifest entry says (${expected.count})`);
        yield parseLine(line, `${name} line ${count}`);
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > MAX_LINE_BYTES) throw new BackupError(`${name} line ${count + 1} is longer than ${MAX_LINE_BYTES} bytes`);
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BackupError(`${name} is missing from the export`);
    throw error;
  } finally {
    stream?.destroy();
  }
  if (pendingBytes > 0) throw new BackupError(`${name} does not end with a line break (cut short?)`);
  if (count !== expected.count || bytes !== expected.bytes || hash.digest('hex') !== expected.sha256) {
    throw new BackupError(`${name} does not match its checksum in the manifest (changed or damaged since the export)`);
  }
}
