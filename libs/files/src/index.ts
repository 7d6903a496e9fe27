export { objectKey } from './keys';
export { ObjectStore, StorageUnavailableError, dispositionOf, type BrowserOrigins, type BucketSetup, type FileMeta, type ObjectStoreOptions, type S3Settings, type UploadTarget } from './object-store';
