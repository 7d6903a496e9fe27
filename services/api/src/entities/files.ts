import type { Value } from '@entia/domain';
import { objectKey, type UploadTarget } from '@entia/files';
import type { Deps } from '../deps';

/** Interface §8: a download URL lives 60 seconds. */
export const DOWNLOAD_URL_SECONDS = 60;

const isFile = (value: Value): value is Value & { filename: string; filesize: number; filetype: string } =>
  value.filename !== undefined && value.filesize !== undefined && value.filetype !== undefined;

/** Written values as the response shows them: each file value with its own signed upload. */
export async function withUploads(deps: Deps, db: string, entityId: string, written: Value[]): Promise<(Value & { upload?: UploadTarget })[]> {
  return Promise.all(
    written.map(async (value) =>
      isFile(value)
        ? { ...value, upload: await deps.objects.presignUpload(objectKey(db, entityId, value._id), value, deps.config.UPLOAD_URL_TTL_SECONDS) }
        : value,
    ),
  );
}

/** A file value with a fresh signed download URL; other values as they are. */
export async function withDownloadUrl(deps: Deps, db: string, entityId: string, value: Value): Promise<Value & { url?: string }> {
  if (!isFile(value)) return value;
  return { ...value, url: await deps.objects.presignDownload(objectKey(db, entityId, value._id), value.filename, DOWNLOAD_URL_SECONDS) };
}

/** Whether a file value's bytes were uploaded. */
export function uploaded(deps: Deps, db: string, entityId: string, value: Value): Promise<boolean> {
  return deps.objects.exists(objectKey(db, entityId, value._id));
}

/**
 * Schedules the removal of the objects of file values that are gone: now, and once more when the
 * value's upload URL has expired (a client may still PUT with it until then). The worker retries
 * until storage answers; a failure to schedule leaves an orphan object, which is logged.
 */
export async function removeObjects(deps: Deps, db: string, entityId: string, gone: Value[]): Promise<void> {
  const options = { attempts: 20, backoff: { type: 'exponential', delay: 2000 } };
  const late = { ...options, delay: (deps.config.UPLOAD_URL_TTL_SECONDS + 60) * 1000 };
  for (const value of gone.filter(isFile)) {
    const key = objectKey(db, entityId, value._id);
    // BullMQ ids may not contain ':'; the key is unique per value, so the ids dedupe retries.
    const id = `delete-object.${key.replaceAll('/', '.')}`;
    await Promise.all([deps.jobs.enqueue('delete-object', { key }, id, options), deps.jobs.enqueue('delete-object', { key }, `${id}.late`, late)]).catch(
      (err: unknown) => deps.logger.error({ err, key }, 'could not schedule the removal of an object; it is orphaned'),
    );
  }
}
