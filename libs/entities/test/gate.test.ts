import { Gate } from '../src/gate';

// The bound on thumbnail renderings (issue 16): so many at once, so many waiting, none for long.
describe('Gate', () => {
  class Busy extends Error {}
  const busy = () => new Busy();

  /** A task that runs until `release` is called; `started` tells whether it began. */
  function held() {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const task = { started: false, release: () => release(), run: async () => { task.started = true; await done; return 'done'; } };
    return task;
  }

  it('runs up to its limit at once, lets the queue wait, and refuses beyond it at once', async () => {
    const gate = new Gate(2, 1, 10_000, busy);
    const [a, b, c] = [held(), held(), held()];
    const running = [gate.run(a.run), gate.run(b.run)];
    const waiting = gate.run(c.run);
    await expect(gate.run(async () => 'late')).rejects.toBeInstanceOf(Busy);
    await Promise.resolve();
    expect([a.started, b.started, c.started]).toEqual([true, true, false]);
    a.release();
    await running[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(c.started).toBe(true);
    b.release();
    c.release();
    await expect(Promise.all([...running, waiting])).resolves.toEqual(['done', 'done', 'done']);
    // Every slot came back.
    await expect(Promise.all([gate.run(async () => 1), gate.run(async () => 2)])).resolves.toEqual([1, 2]);
  });

  it('a wait that runs out is refused, and leaves the line', async () => {
    const gate = new Gate(1, 1, 50, busy);
    const a = held();
    const first = gate.run(a.run);
    await expect(gate.run(async () => 'never')).rejects.toBeInstanceOf(Busy);
    const again = held();
    const queued = gate.run(again.run);
    a.release();
    again.release();
    await expect(Promise.all([first, queued])).resolves.toEqual(['done', 'done']);
  });

  it('a failing task gives its slot back', async () => {
    const gate = new Gate(1, 0, 1000, busy);
    await expect(gate.run(async () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    await expect(gate.run(async () => 'next')).resolves.toBe('next');
  });
});
