import { setTimeout as sleep } from 'node:timers/promises';
import { probe } from '@entia/health';

describe('probe', () => {
  it('names every dependency up or down, and why each one that is down failed', async () => {
    const readiness = await probe(
      {
        mongodb: async () => 'pong',
        redis: async () => {
          throw new Error('ECONNREFUSED 127.0.0.1:6379');
        },
      },
      1000,
    );
    expect(readiness).toEqual({ ready: false, checks: { mongodb: 'up', redis: 'down' }, failures: { redis: 'ECONNREFUSED 127.0.0.1:6379' } });
  });

  it('is ready when every dependency answers', async () => {
    await expect(probe({ a: async () => 1, b: async () => undefined }, 1000)).resolves.toEqual({ ready: true, checks: { a: 'up', b: 'up' }, failures: {} });
  });

  it('counts a dependency that does not answer in time as down (a hung one too: the probe still answers)', async () => {
    const readiness = await probe({ hung: () => new Promise(() => {}), slow: () => sleep(5000, undefined, { ref: false }), fast: async () => 'ok' }, 200);
    expect(readiness.checks).toEqual({ hung: 'down', slow: 'down', fast: 'up' });
    expect(readiness.failures.hung).toBe('no answer within 200 ms');
  });
});
