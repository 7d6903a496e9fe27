export { Store, type StoreOptions } from './connection';
