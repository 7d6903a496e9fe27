import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FileDownload } from './download';
import type { FileUpload } from './upload';

/**
 * A file on disk as an upload (`db.uploadFile` or `db.type(…).upload`): its name, size and a fresh
 * stream per attempt, so a large file is never held in memory and an expired upload URL can start
 * again. `filetype` defaults to `application/octet-stream`.
 */
export async function fileFromPath(path: string, options: { filename?: string; filetype?: string } = {}): Promise<Omit<FileUpload, 'type'>> {
  const { size } = await stat(path);
  return {
    filename: options.filename ?? basename(path),
    filetype: options.filetype ?? 'application/octet-stream',
    size,
    data: () => Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>,
  };
}

/** Writes a download's bytes to `path` as they arrive. */
export async function saveDownload(download: FileDownload, path: string): Promise<void> {
  const body = download.response.body;
  if (!body) throw new Error('the download has no body');
  await pipeline(Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>), createWriteStream(path));
}
