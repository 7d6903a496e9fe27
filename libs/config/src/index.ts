export { ConfigSchema, type Config } from './schema';
export { ConfigError, loadConfig, loadConfigOrExit } from './load';
export { parseCorsOrigins, type CorsOrigins } from './cors';
