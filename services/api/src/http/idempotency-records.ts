import { randomBytes } from 'node:crypto';
import type { RedisBreaker } from '@entia/jobs';

/** What a key holds: a request still running, or the answer it ended with (sealed, see AnswerSeal). */
export type IdempotencyRecord = { fingerprint: string; state: 'running' } | { fingerprint: string; state: 'done'; sealed: Buffer };

/** Proof of having claimed a key: only its holder may renew, finish or release it. */
export interface Claim {
  key: string;
  value: string;
}

/** Answers are replayed for 24 h (SPEC §11). */
const ANSWER_TTL_SECONDS = 24 * 3600;

// Compare-and-set on the exact claim value: a claim that lapsed (its process stalled past the
// TTL) and was taken by a retry must not be overwritten or deleted by the first process.
const FINISH = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
  return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * Idempotency records in Redis, one string each: a JSON line with the request's fingerprint and
 * either the claim of the process running it, or `done` followed by the sealed answer's bytes.
 */
export class IdempotencyRecords {
  constructor(
    /** Request-path Redis: while Redis is known to be away, every call fails at once. */
    private readonly redis: RedisBreaker,
    private readonly claimTtlMs: number,
  ) {}

  /** Claims `key` for a new request; undefined when someone holds it already. */
  async claim(key: string, fingerprint: string): Promise<Claim | undefined> {
    const value = JSON.stringify({ f: fingerprint, claim: randomBytes(12).toString('base64url') });
    const set = await this.redis.run((redis) => redis.set(key, value, 'PX', this.claimTtlMs, 'NX'));
    return set === 'OK' ? { key, value } : undefined;
  }

  /** The record under `key`; undefined when there is none (it lapsed or was released). */
  async read(key: string): Promise<IdempotencyRecord | undefined> {
    const stored = await this.redis.run((redis) => redis.getBuffer(key));
    if (stored === null) return undefined;
    const newline = stored.indexOf(10);
    const meta = JSON.parse(stored.subarray(0, newline < 0 ? stored.length : newline).toString('utf8')) as { f: string; done?: true };
    if (!meta.done || newline < 0) return { fingerprint: meta.f, state: 'running' };
    return { fingerprint: meta.f, state: 'done', sealed: stored.subarray(newline + 1) };
  }

  /** Keeps a running claim alive (nothing happens when it is no longer ours). */
  async renew(claim: Claim): Promise<void> {
    await this.redis.run((redis) => redis.eval(RENEW, 1, claim.key, claim.value, this.claimTtlMs));
  }

  /** Replaces the claim by the sealed answer, kept for 24 h. */
  async finish(claim: Claim, sealed: Buffer): Promise<void> {
    const fingerprint = (JSON.parse(claim.value) as { f: string }).f;
    const meta = JSON.stringify({ f: fingerprint, done: true });
    await this.redis.run((redis) => redis.eval(FINISH, 1, claim.key, claim.value, Buffer.concat([Buffer.from(`${meta}\n`), sealed]), ANSWER_TTL_SECONDS));
  }

  /** Drops the claim, so that a retry executes again. */
  async release(claim: Claim): Promise<void> {
    await this.redis.run((redis) => redis.eval(FINISH, 1, claim.key, claim.value, '', 0));
  }
}
