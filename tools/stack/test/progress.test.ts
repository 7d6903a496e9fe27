import { attemptTimeoutMs, judge, progressed, type Signs } from '../src/progress';

// What counts as progress while the stack waits for a server (issue 31), and when a wait is over.

const ours = (cpuTicks: number, logBytes: number, accepts = false, alive = true): Signs => ({ alive, cpuTicks, logBytes, accepts });
const unseen = (accepts: boolean): Signs => ({ alive: true, accepts });

describe('progressed', () => {
  test.each<[string, Signs, Signs, boolean]>([
    ['our process used CPU time', ours(10, 100), ours(11, 100), true],
    ['our process wrote to its log', ours(10, 100), ours(10, 180), true],
    ['our process did neither', ours(10, 100), ours(10, 100), false],
    // The kernel completes handshakes for a stopped or deadlocked process: not progress when its CPU time is visible.
    ['our process takes connections but does no work', ours(10, 100, true), ours(10, 100, true), false],
    ['our process has exited', ours(10, 100), ours(12, 200, true, false), false],
    ['a server we cannot see takes connections', unseen(false), unseen(true), true],
    ['a server we cannot see refuses connections', unseen(true), unseen(false), false],
    ['our process on a system without /proc takes connections', { alive: true, logBytes: 5, accepts: true }, { alive: true, logBytes: 5, accepts: true }, true],
  ])('%s → %s', (_what, before, now, expected) => {
    expect(progressed(before, now)).toBe(expected);
  });
});

describe('judge', () => {
  const STALL = 30_000;
  const start = judge(undefined, ours(1, 0), 1000, STALL);

  test('the first look starts the clock', () => {
    expect(start).toEqual({ kind: 'waiting', watch: { last: ours(1, 0), progressAt: 1000 } });
  });

  test.each<[string, Signs, number, string]>([
    ['work within the window', ours(2, 0), 1000 + STALL - 1, 'waiting'],
    ['work after the window would have ended: progress was seen at this very look', ours(2, 0), 1000 + STALL + 5000, 'waiting'],
    ['no work, short of the window', ours(1, 0), 1000 + STALL - 1, 'waiting'],
    ['no work for the whole window', ours(1, 0), 1000 + STALL, 'stalled'],
    ['gone, however recently it worked', ours(9, 9, false, false), 1001, 'dead'],
  ])('%s → %s', (_what, signs, at, kind) => {
    if (start.kind !== 'waiting') throw new Error('unreachable');
    expect(judge(start.watch, signs, at, STALL).kind).toBe(kind);
  });

  test('the window counts from the last progress, not from the start', () => {
    let verdict = judge(undefined, unseen(false), 0, STALL);
    for (const [accepts, at] of [[true, 20_000], [false, 40_000], [false, 49_999]] as const) {
      if (verdict.kind !== 'waiting') throw new Error(`${verdict.kind} at ${at}`);
      verdict = judge(verdict.watch, unseen(accepts), at, STALL);
    }
    expect(verdict.kind).toBe('waiting');
    if (verdict.kind !== 'waiting') return;
    expect(judge(verdict.watch, unseen(false), 50_000, STALL).kind).toBe('stalled');
  });
});

describe('attemptTimeoutMs', () => {
  test.each([
    [0, 2000],
    [3000, 2000],
    [10_000, 5000],
    [59_000, 29_500],
    [600_000, 30_000],
  ])('after %i ms of waiting, one attempt may take %i ms', (waited, limit) => {
    expect(attemptTimeoutMs(waited)).toBe(limit);
  });
});
