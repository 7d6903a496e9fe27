import { FIRST_CONTACT, retryDelay, retryUntilDone } from '@entia/health';

describe('retryDelay', () => {
  it.each([
    [1, 250],
    [2, 500],
    [3, 1000],
    [4, 2000],
    [5, 2000],
    [50, 2000],
    // Nonsense counts wait the least, never less.
    [0, 250],
    [-3, 250],
  ])('after attempt %i: %i ms (doubling from 250 ms up to 2 s)', (attempt, ms) => {
    expect(retryDelay(attempt)).toBe(ms);
    expect(retryDelay(attempt, FIRST_CONTACT)).toBe(ms);
  });

  it('follows the schedule it is given', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, { firstMs: 10, maxMs: 25 }))).toEqual([10, 20, 25, 25]);
  });
});

describe('retryUntilDone', () => {
  const quick = { firstMs: 5, maxMs: 20 };

  it('tries again after each failure until an attempt succeeds, telling of each failure', async () => {
    let calls = 0;
    const told: [string, number][] = [];
    const result = await retryUntilDone(
      async () => {
        if (++calls < 4) throw new Error(`refused ${calls}`);
        return 'connected';
      },
      { schedule: quick, onFailure: (error, attempt) => told.push([(error as Error).message, attempt]) },
    );
    expect(result).toBe('connected');
    expect(told).toEqual([
      ['refused 1', 1],
      ['refused 2', 2],
      ['refused 3', 3],
    ]);
  });

  it('stops when its signal aborts, with the signal’s reason, and tries no more', async () => {
    const stop = new AbortController();
    let calls = 0;
    const retrying = retryUntilDone(
      async () => {
        calls++;
        throw new Error('refused');
      },
      { schedule: { firstMs: 60_000, maxMs: 60_000 }, signal: stop.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort(new Error('closed'));
    await expect(retrying).rejects.toThrow('closed');
    expect(calls).toBe(1);
  });

  it('does not start when already aborted', async () => {
    let calls = 0;
    await expect(retryUntilDone(async () => ++calls, { signal: AbortSignal.abort(new Error('closed')) })).rejects.toThrow('closed');
    expect(calls).toBe(0);
  });
});
