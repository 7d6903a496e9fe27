import { within } from './tcp-probe';

/**
 * Redis answers PING with PONG only once it has loaded its data and accepts commands (before, an
 * error: LOADING). One try by ioredis, no retries, no queue, bounded by `timeoutMs`; ioredis is
 * loaded only when a ping is sent, not when the CLI starts.
 */
export async function redisPing(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const redis = new Redis({
    port,
    host,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    // Its ready check would wait for the loading to end: this ping is to say that it has not.
    enableReadyCheck: false,
  });
  redis.on('error', () => undefined);
  const ping = (async () => {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  })().catch(() => false);
  try {
    return await within(timeoutMs, ping, false);
  } finally {
    redis.disconnect();
  }
}
