import type { RedisBreaker } from '@entia/jobs';
import { createHash, randomBytes } from 'node:crypto';

/**
 * Words that stand for something once, for a short while: stream tickets, sign-in states, one-time
 * sign-in codes, passkey challenges. Only a word's hash is a Redis key, so the store holds nothing
 * a reader of Redis could present; taking one deletes it in the same command (GETDEL), so of two
 * requests presenting the same word exactly one gets its value.
 */
export class SingleUse<T> {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly prefix: string,
    private readonly seconds: number,
  ) {}

  private key(word: string): string {
    return `${this.prefix}:${createHash('sha256').update(word).digest('base64url')}`;
  }

  /** A new random word standing for `value`. */
  async issue(value: T): Promise<string> {
    const word = randomBytes(32).toString('base64url');
    await this.keep(word, value);
    return word;
  }

  /** Keeps a word made elsewhere (a WebAuthn challenge the library generated). */
  async keep(word: string, value: T): Promise<void> {
    await this.breaker.run((redis) => redis.set(this.key(word), JSON.stringify(value), 'EX', this.seconds));
  }

  /** What the word stands for, taken: undefined when unknown, used or expired. */
  async take(word: string): Promise<T | undefined> {
    const stored = await this.breaker.run((redis) => redis.getdel(this.key(word)));
    return stored ? (JSON.parse(stored) as T) : undefined;
  }
}
