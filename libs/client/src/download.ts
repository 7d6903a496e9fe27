import type { CallOptions } from './signals';
import { toError } from './transport';
import type { Value } from './types';

/** A file value's content as `download` gives it. */
export interface FileDownload {
  /** The value, with its `filename`, `filesize` and `filetype`. */
  value: Value;
  /** The storage's answer: `.blob()`, `.arrayBuffer()`, or `.body` to stream it. */
  response: Response;
}

/** The API call `download` needs (an `EntiaDatabase`). */
export interface DownloadApi {
  getProperty(valueId: string, options?: CallOptions): Promise<Value>;
}

/**
 * A file value's metadata from the API, then its bytes from the signed URL the API answered with.
 * The bearer token stays with the API: the storage is asked with nothing but the signed URL.
 */
export async function download(api: DownloadApi, valueId: string, options: CallOptions = {}): Promise<FileDownload> {
  const value = await api.getProperty(valueId, options);
  if (typeof value.url !== 'string') throw new TypeError(`value ${valueId} is not a file value (it has no download url)`);
  const response = await fetch(value.url, options.signal ? { signal: options.signal } : {});
  if (!response.ok) throw await toError(response);
  const { url: _signed, ...rest } = value;
  return { value: rest, response };
}
