import { ConfigError, loadConfig } from '@entia/config';

/** The settings without a default: the least a runnable environment holds. */
export const required = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
  REDIS_URL: 'redis://127.0.0.1:6379',
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_ACCESS_KEY: 'access',
  S3_SECRET_KEY: 'secret-value',
  JWT_SECRET: 'a-jwt-secret-of-at-least-32-characters',
};

/** The one-line message `env` is refused with (failing the test when it is accepted). */
export function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}
