import { displayOf, isFileValue as isFile, thumbnailKeys, type Value } from '@entia/domain';
import { objectKey, type UploadTarget } from '@entia/files';
import type { EntitiesDeps } from './deps';

/** Interface §8: a download URL lives 60 seconds. */
export const DOWNLOAD_URL_SECONDS = 60;

/**
 * Before a write that hands out upload URLs (it writes file values) is stored: storage must be able
 * to take the uploads. Throws, answered 503 with nothing stored, when it cannot.
 */
export async function uploadsCanWork(deps: EntitiesDeps, written: readonly Value[]): Promise<void> {
  if (written.some(isFile)) await deps.objects.whenWritable();
}

/** Written values as the response shows them: each file value with its own signed upload. */
export async function withUploads(deps: EntitiesDeps, db: string, entityId: string, written: Value[]): Promise<(Value & { upload?: UploadTarget })[]> {
  return Promise.all(
    written.map(async (value) =>
      isFile(value)
        ? { ...value, upload: await deps.objects.presignUpload(objectKey(db, entityId, value._id), value, deps.settings.uploadUrlTtlSeconds) }
        : value,
    ),
  );
}

/**
 * A file value with a fresh signed URL; other values as they are. `show`: a URL the browser shows in
 * place when the type is safe to show (`displayOf`), else a download; `download`: always a download.
 */
export async function withDownloadUrl(deps: EntitiesDeps, db: string, entityId: string, value: Value, purpose: 'show' | 'download'): Promise<Value & { url?: string }> {
  if (!isFile(value)) return value;
  const display = purpose === 'show' ? displayOf(value.filetype) : undefined;
  const inlineAs = display?.disposition === 'inline' ? display.contentType : undefined;
  return { ...value, url: await deps.objects.presignDownload(objectKey(db, entityId, value._id), value.filename, DOWNLOAD_URL_SECONDS, inlineAs) };
}

/** Whether a file value's bytes were uploaded. */
export function uploaded(deps: EntitiesDeps, db: string, entityId: string, value: Value): Promise<boolean> {
  return deps.objects.exists(objectKey(db, entityId, value._id));
}

/**
 * The object keys of the file values among `gone`, each with the keys its thumbnails may have:
 * what the outbox asks the worker to remove (removing a thumbnail never made is harmless).
 */
export function objectKeysOf(db: string, entityId: string, gone: readonly Value[]): string[] {
  return gone.filter(isFile).flatMap((value) => {
    const key = objectKey(db, entityId, value._id);
    return [key, ...thumbnailKeys(key)];
  });
}

/**
 * A client may still PUT with an upload URL until it expires, after the worker removed the object
 * of a value that is gone: remove it once more then. Best effort (a job in Redis, not in the
 * outbox): what a lost job leaves is an orphaned object, never wrong data. Never throws.
 */
export async function removeAgainLater(deps: EntitiesDeps, db: string, entityId: string, gone: readonly Value[]): Promise<void> {
  const options = { attempts: 20, backoff: { type: 'exponential', delay: 2000 }, delay: (deps.settings.uploadUrlTtlSeconds + 60) * 1000 };
  for (const key of objectKeysOf(db, entityId, gone)) {
    // BullMQ ids may not contain ':'; the key is unique per value, so the id dedupes retries.
    const id = `delete-object.${key.replaceAll('/', '.')}.late`;
    await deps.jobs.enqueue('delete-object', { key }, id, options).catch((err: unknown) => deps.logger.error({ err, key }, 'could not schedule the late removal of an object'));
  }
}
