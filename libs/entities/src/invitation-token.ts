import { createHmac } from 'node:crypto';
import type { InvitationClaims } from '@entia/domain';
import jwt from 'jsonwebtoken';

/** A token signing secret under its key id, as JWT_SECRETS lists them. */
export interface InvitationSecret {
  kid: string;
  secret: string;
}

const ALGORITHM = 'HS256';
/** What each secret is turned into for invitations: their key is never the key of API tokens. */
const PURPOSE = 'entia invitation v1';
/** Far longer than any invitation is no invitation: not even decoded. */
const MAX_TOKEN = 2048;

/**
 * The keys invitation tokens are signed and verified with: one per token secret (JWT_SECRETS),
 * derived from it (HMAC of the secret with a fixed purpose), so that rotating the token secrets
 * rotates these too, while no invitation can be verified as an API token nor the other way round,
 * whatever the two verifiers' other checks. Tokens are JWTs (HS256, with the secret's `kid`, by the
 * library API tokens use): Entu's client reads the payload of the invitation it holds.
 */
export class InvitationKeys {
  private readonly byKid: ReadonlyMap<string, Buffer>;
  private readonly signingKid: string;

  constructor(secrets: readonly InvitationSecret[]) {
    if (secrets.length === 0) throw new Error('no secret to sign invitations with');
    this.byKid = new Map(secrets.map(({ kid, secret }) => [kid, createHmac('sha256', secret).update(PURPOSE).digest()]));
    this.signingKid = secrets[0]!.kid;
  }

  /** The claims carry their own `iat`, `exp` and `aud`; the library adds nothing. */
  sign(claims: InvitationClaims): string {
    return jwt.sign({ ...claims }, this.byKid.get(this.signingKid)!, { algorithm: ALGORITHM, keyid: this.signingKid });
  }

  /** The payload of a token one of the keys signed, unchecked otherwise (`checkInvitationClaims` judges it); undefined for anything else. */
  verifiedPayload(token: string): unknown {
    if (token.length > MAX_TOKEN) return undefined;
    const kid = jwt.decode(token, { complete: true })?.header.kid;
    const key = kid === undefined ? undefined : this.byKid.get(kid);
    if (!key) return undefined;
    try {
      return jwt.verify(token, key, { algorithms: [ALGORITHM], ignoreExpiration: true, ignoreNotBefore: true });
    } catch {
      return undefined;
    }
  }
}
