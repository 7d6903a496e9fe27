export { objectKey } from './keys';
export { ObjectStore, dispositionOf, type FileMeta, type ObjectStoreOptions, type S3Settings, type UploadTarget } from './object-store';
