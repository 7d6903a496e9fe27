/**
 * A counting semaphore with a bounded, time-limited waiting line: at most `limit` tasks run at
 * once, at most `queue` wait, and none waits longer than `waitMs`. A task that finds the line full,
 * or waits too long, fails with `busy()` at once rather than piling up work the process cannot do.
 */
export class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly queue: number,
    private readonly waitMs: number,
    private readonly busy: () => Error,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running += 1;
    else await this.turn();
    try {
      return await task();
    } finally {
      // The slot passes to the first waiter as it is; only when nobody waits is it given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Waits until a finishing task hands over its slot, or fails with `busy()`. */
  private turn(): Promise<void> {
    if (this.waiting.length >= this.queue) return Promise.reject(this.busy());
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(this.busy());
      }, this.waitMs);
      this.waiting.push(wake);
    });
  }
}
