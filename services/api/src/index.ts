export { createApp } from './app';
export { closeDeps, openDeps, type Deps } from './deps';
export { createLogger } from './logger';
