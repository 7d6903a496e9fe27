import type { RedisBreaker } from '@entia/jobs';
import { randomBytes } from 'node:crypto';
import type { VerifiedPerson } from './oidc';
import { SingleUse } from './single-use';

/** How long the one-time key a provider sign-in returns with may wait for `GET /api/auth` (Entu's: 5 min). */
export const SIGN_IN_KEY_SECONDS = 300;

const PREFIX = 'once-';
/** `once-` and 32 random bytes, base64url: never the shape of an API key (43 characters, no prefix). */
const SHAPE = /^once-[A-Za-z0-9_-]{43}$/;

/**
 * The one-time keys a provider sign-in started by Entu's client returns with:
 * each stands for the person the provider vouched for, until `GET /api/auth` takes it — once,
 * within five minutes. Only the key's hash is kept (SingleUse), and API keys never touch Redis:
 * a bearer of another shape is not looked up here.
 */
export class SignInKeys {
  private readonly keys: SingleUse<VerifiedPerson>;

  constructor(breaker: RedisBreaker, prefix: string) {
    this.keys = new SingleUse(breaker, `${prefix}:oidc:key`, SIGN_IN_KEY_SECONDS);
  }

  static isOne(bearer: string): boolean {
    return SHAPE.test(bearer);
  }

  async issue(person: VerifiedPerson): Promise<string> {
    const key = `${PREFIX}${randomBytes(32).toString('base64url')}`;
    await this.keys.keep(key, person);
    return key;
  }

  /** The person the key stands for, taken; undefined when unknown, used or expired. */
  take(key: string): Promise<VerifiedPerson | undefined> {
    return this.keys.take(key);
  }
}
