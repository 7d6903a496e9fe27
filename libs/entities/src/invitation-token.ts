import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InvitationClaims } from '@entia/domain';

/** A token signing secret under its key id, as JWT_SECRETS lists them. */
export interface InvitationSecret {
  kid: string;
  secret: string;
}

const HEADER_ALG = 'HS256';
/** What each secret is turned into for invitations: their key is never the key of API tokens. */
const PURPOSE = 'entia invitation v1';

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/**
 * The keys invitation tokens are signed and verified with: one per token secret (JWT_SECRETS),
 * derived from it (HMAC of the secret with a fixed purpose), so that rotating the token secrets
 * rotates these too, while no invitation can be verified as an API token nor the other way round,
 * whatever the two verifiers' other checks. Tokens are JWTs (HS256, with the secret's `kid`): Entu's
 * client reads the payload of the invitation it holds.
 */
export class InvitationKeys {
  private readonly byKid: ReadonlyMap<string, Buffer>;
  private readonly signingKid: string;

  constructor(secrets: readonly InvitationSecret[]) {
    if (secrets.length === 0) throw new Error('no secret to sign invitations with');
    this.byKid = new Map(secrets.map(({ kid, secret }) => [kid, createHmac('sha256', secret).update(PURPOSE).digest()]));
    this.signingKid = secrets[0]!.kid;
  }

  sign(claims: InvitationClaims): string {
    const signed = `${base64url(JSON.stringify({ alg: HEADER_ALG, typ: 'JWT', kid: this.signingKid }))}.${base64url(JSON.stringify(claims))}`;
    return `${signed}.${this.mac(this.byKid.get(this.signingKid)!, signed).toString('base64url')}`;
  }

  /** The payload of a token one of the keys signed, unchecked otherwise; undefined for anything else. */
  verifiedPayload(token: string): unknown {
    // A JWT's three parts, base64url; far longer than any invitation is no invitation.
    if (token.length > 2048 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return undefined;
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const head = parseJson(header);
    if (typeof head !== 'object' || head === null || (head as { alg?: unknown }).alg !== HEADER_ALG) return undefined;
    const kid = (head as { kid?: unknown }).kid;
    const key = typeof kid === 'string' && this.byKid.has(kid) ? this.byKid.get(kid)! : undefined;
    if (!key) return undefined;
    const expected = this.mac(key, `${header}.${payload}`);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return parseJson(payload);
  }

  private mac(key: Buffer, data: string): Buffer {
    return createHmac('sha256', key).update(data).digest();
  }
}

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
