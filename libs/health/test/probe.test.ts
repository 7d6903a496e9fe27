import { setTimeout as sleep } from 'node:timers/promises';
import { failureReason, probe, stuckParts } from '@entia/health';

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

describe('failureReason', () => {
  const withCause = (message: string, cause: object) => Object.assign(new Error(message), { cause });
  it.each([
    ['a message as it is', new Error('connect ECONNREFUSED 127.0.0.1:27017'), 'connect ECONNREFUSED 127.0.0.1:27017'],
    ['its first line only', new Error('Command timed out\n    at Redis.sendCommand'), 'Command timed out'],
    ["its cause's code when the message does not name it", withCause('object storage did not answer', { code: 'ECONNREFUSED' }), 'object storage did not answer (ECONNREFUSED)'],
    ["not the cause's code twice", withCause('connect ECONNREFUSED 127.0.0.1:9000', { code: 'ECONNREFUSED' }), 'connect ECONNREFUSED 127.0.0.1:9000'],
    ['the name of an error without a message', Object.assign(new Error(''), { name: 'MongoTopologyClosedError' }), 'MongoTopologyClosedError'],
    ['an error of another realm, by its shape', { name: 'Error', message: 'socket hang up', code: 'ECONNRESET' }, 'socket hang up'],
    ['anything else as text', 'no answer', 'no answer'],
    ['at most 200 characters', new Error('x'.repeat(500)), 'x'.repeat(200)],
  ])('%s', (_case, error, reason) => {
    expect(failureReason(error)).toBe(reason);
  });
});

describe('stuckParts', () => {
  it('names each part that says it is stuck, with why; nothing while none is', () => {
    expect(stuckParts({ mongodb: () => undefined, redis: () => undefined })).toEqual({});
    expect(stuckParts({ mongodb: () => 'closed while in use', redis: () => undefined, jobs: () => 'the job loop ended' })).toEqual({
      mongodb: 'closed while in use',
      jobs: 'the job loop ended',
    });
  });
});
