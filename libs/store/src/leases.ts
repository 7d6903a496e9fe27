import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { WriteBusy, type HeldLease, type Leases } from './writer';

// Deletes the lease only if it is still ours: one that expired and was taken by another writer stays.
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
// Extends the lease only if it is still ours.
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/**
 * How the leases reach Redis: every call through `run`, so that a circuit breaker in front of the
 * client (the services' `RedisBreaker`) fails them at once while Redis is known to be away.
 */
export interface LeaseRedis {
  run<T>(call: (redis: Redis) => Promise<T>): Promise<T>;
}

export interface LeaseOptions {
  /** How long a lease outlives its holder: renewed every third of it while the holder works. */
  ttlMs: number;
  /** How long a writer waits for its turn before giving up (`WriteBusy`). */
  waitMs: number;
}

/**
 * Leases in Redis (`SET NX PX`, renewed every third of their time while held, released by a
 * compare-and-delete script), so a holder that dies blocks its entity for at most `ttlMs`. Redis
 * away: `hold` throws the client's error before `work` runs, so nothing is written unserialised.
 * Waiters of one name in this process queue behind each other, so only the first of them polls
 * Redis. A lease is `valid` while it was last confirmed (taken or renewed) less than half its time
 * ago: a write is started only then, so it ends before another process could take the lease.
 */
export class RedisLeases implements Leases {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly redis: LeaseRedis,
    private readonly prefix: string,
    private readonly options: LeaseOptions,
  ) {}

  async hold<T>(name: string, work: (lease: HeldLease) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.options.waitMs;
    const previous = this.queues.get(name) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = previous.then(() => mine);
    this.queues.set(name, tail);
    try {
      await this.turn(previous, deadline);
      const key = `${this.prefix}:lease:${name}`;
      const token = randomBytes(12).toString('base64url');
      let confirmedAt = await this.acquire(key, token, deadline);
      const renewal = setInterval(() => {
        const at = Date.now();
        this.redis
          .run((redis) => redis.eval(RENEW, 1, key, token, String(this.options.ttlMs)))
          .then((renewed) => {
            if (renewed === 1) confirmedAt = at;
          })
          .catch(() => undefined);
      }, this.options.ttlMs / 3);
      try {
        return await work({ valid: () => Date.now() - confirmedAt < this.options.ttlMs / 2 });
      } finally {
        clearInterval(renewal);
        // A failed release only delays the next writer until the lease expires; the write stands.
        await this.redis.run((redis) => redis.eval(RELEASE, 1, key, token)).catch(() => undefined);
      }
    } finally {
      done();
      if (this.queues.get(name) === tail) this.queues.delete(name);
    }
  }

  /** Waits for the writers queued before this one in this process, at most until `deadline`. */
  private async turn(previous: Promise<void>, deadline: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.busy()), Math.max(0, deadline - Date.now()));
    });
    try {
      await Promise.race([previous, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Takes the lease, polling with growing pauses while another process holds it. */
  private async acquire(key: string, token: string, deadline: number): Promise<number> {
    for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
      const at = Date.now();
      if ((await this.redis.run((redis) => redis.set(key, token, 'PX', this.options.ttlMs, 'NX'))) === 'OK') return at;
      if (Date.now() + pause > deadline) throw this.busy();
      await sleep(pause * (0.5 + Math.random()));
    }
  }

  private busy(): WriteBusy {
    return new WriteBusy(Math.max(1, Math.ceil(this.options.waitMs / 1000)));
  }
}
