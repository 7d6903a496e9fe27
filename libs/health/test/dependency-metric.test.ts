import { setTimeout as sleep } from 'node:timers/promises';
import { DEPENDENCY_UP_METRIC, measureDependencies } from '@entia/health';

describe('entia_dependency_up', () => {
  it.each([
    ['answers', async () => 'pong', 1],
    ['fails', async () => Promise.reject(new Error('ECONNREFUSED')), 0],
    ['hangs past the timeout', () => new Promise(() => {}), 0],
    ['answers too late', () => sleep(2000, 'late', { ref: false }), 0],
  ])('is %s → %i', async (_, check, expected) => {
    const set: [string, number][] = [];
    await measureDependencies({ mongodb: check }, 100, (dependency, up) => set.push([dependency, up]));
    expect(set).toEqual([['mongodb', expected]]);
  });

  it('sets every dependency, each on its own, under the name alerts.yaml uses', async () => {
    const set: Record<string, number> = {};
    await measureDependencies({ mongodb: async () => 1, redis: async () => Promise.reject(new Error('down')), storage: async () => 1 }, 100, (d, up) => (set[d] = up));
    expect(set).toEqual({ mongodb: 1, redis: 0, storage: 1 });
    expect(DEPENDENCY_UP_METRIC).toMatchObject({ name: 'entia_dependency_up', labelNames: ['dependency'] });
  });
});
