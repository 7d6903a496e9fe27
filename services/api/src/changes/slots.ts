import type { RedisBreaker } from '@entia/jobs';

// Frees expired slots, then takes one if fewer than the maximum are held. A slot expires unless
// renewed, so a process that died without releasing its streams' slots frees them by itself.
const TAKE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/**
 * The change streams one person (or one anonymous IP) holds across every API process, in Redis
 * (a maximum per person). Each open stream holds a slot that it renews with its heartbeats.
 */
export class StreamSlots {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly prefix: string,
    private readonly max: number,
    /** How long a slot lives without renewal. */
    private readonly ttlMs: number,
  ) {}

  private key(holder: string): string {
    return `${this.prefix}:changes:streams:${holder}`;
  }

  /** Takes a slot for stream `id` of `holder`; false when they hold the maximum already. */
  async take(holder: string, id: string): Promise<boolean> {
    const taken = await this.breaker.run((redis) => redis.eval(TAKE, 1, this.key(holder), String(Date.now()), String(this.max), String(this.ttlMs), id));
    return taken === 1;
  }

  async renew(holder: string, id: string): Promise<void> {
    await this.breaker.run((redis) => redis.multi().zadd(this.key(holder), 'XX', Date.now() + this.ttlMs, id).pexpire(this.key(holder), this.ttlMs).exec());
  }

  async release(holder: string, id: string): Promise<void> {
    await this.breaker.run((redis) => redis.zrem(this.key(holder), id));
  }
}
