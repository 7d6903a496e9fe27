export { createApp } from './app';
export { closeDeps, openDeps, type Deps } from './deps';
export { createLogger } from './logger';
export { Lifecycle } from './http/lifecycle';
export { scrubUrl } from './log-redaction';
