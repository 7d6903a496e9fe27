export { objectKey } from './keys';
export { BUCKET_RECHECK_MS, ObjectStore, StorageUnavailableError, dispositionOf, type BrowserOrigins, type BucketSetup, type FileMeta, type ObjectStoreOptions, type S3Settings, type UploadTarget } from './object-store';
export { ObjectTooLargeError, type ListedObject, type ObjectStat, type StoredObjectStream } from './object-store';
export { UnreadableImageError, imageInfo, renderThumbnail, type RenderLimits } from './thumbnail';
