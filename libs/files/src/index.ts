export { ObjectStore, type ObjectStoreOptions } from './object-store';
