import type { Readable } from 'node:stream';

/** Object storage as export and import need it (`ObjectStore` fits): listing, and streams both ways. */
export interface BackupObjects {
  /** Every object under `prefix`, a page at a time. */
  list(prefix: string): AsyncIterable<{ key: string; size: number }[]>;
  readStream(key: string, timeoutMs: number): Promise<{ body: Readable; size: number; contentType: string; contentDisposition?: string } | undefined>;
  writeStream(key: string, body: Readable, meta: { size: number; contentType: string; contentDisposition?: string }, timeoutMs: number): Promise<void>;
  /** Removes every object under `prefix` (an import's undo). */
  removePrefix(prefix: string): Promise<number>;
}
