import type { PasskeyKey } from '@entia/store';
import type { RegisteredPasskey } from '@entia/entities';
import type { RedisBreaker } from '@entia/jobs';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { SingleUse } from './single-use';

/** How long a ceremony's challenge waits for its answer. */
export const CHALLENGE_SECONDS = 300;
// COSE algorithm ids: EdDSA, ES256, RS256.
const PASSKEY_ALGORITHMS = [-8, -7, -257];

export interface RelyingParty {
  id: string;
  name: string;
  origins: readonly string[];
}

/** Whom a challenge was issued to: a database's sign-in (any database's, for Entu's client), or one person's registration. */
interface Challenged {
  db?: string;
  person?: string;
}

/**
 * What an answer's challenge must have been issued for. `challengeToken`: Entu's client sends the
 * options' `challengeToken` back beside the answer; here it is the challenge itself (it is public:
 * the options carry it), so it must name the very challenge the authenticator signed.
 */
interface Expected {
  db: string;
  person?: string;
  challengeToken?: string;
}

/**
 * WebAuthn ceremonies on @simplewebauthn/server: the relying party's ID and origins
 * checked in every answer, each challenge kept once for `CHALLENGE_SECONDS` and taken by the answer
 * that signs it (a replayed answer finds it gone), user presence required. Attestation is not
 * asked for: which authenticator made a passkey is not this service's policy.
 */
export class PasskeyCeremonies {
  private readonly challenges: SingleUse<Challenged>;

  constructor(
    private readonly rp: RelyingParty,
    breaker: RedisBreaker,
    prefix: string,
  ) {
    this.challenges = new SingleUse(breaker, `${prefix}:webauthn:challenge`, CHALLENGE_SECONDS);
  }

  async registrationOptions(db: string, person: { id: string; name: string }, existing: readonly string[]): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const options = await generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: person.name || person.id,
      userID: new TextEncoder().encode(person.id),
      attestationType: 'none',
      excludeCredentials: existing.map((id) => ({ id })),
      // Discoverable: signing in needs no user name, the authenticator offers its passkeys.
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      timeout: CHALLENGE_SECONDS * 1000,
      // The library's default grows with the runtime: on a Node with ML-DSA it offers ML-DSA-44
      // first, verified by an experimental Node API. One list, whatever the Node: EdDSA, ES256, RS256.
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    await this.challenges.keep(options.challenge, { db, person: person.id });
    return options;
  }

  /** The passkey a registration answer creates; throws when it fails a check. */
  async verifyRegistration(db: string, person: string, response: RegistrationResponseJSON, challengeToken?: string): Promise<RegisteredPasskey> {
    const verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: (challenge) => this.issuedTo(challenge, { db, person, ...(challengeToken === undefined ? {} : { challengeToken }) }),
      expectedOrigin: [...this.rp.origins],
      expectedRPID: this.rp.id,
      requireUserVerification: false,
    });
    if (!verification.verified) throw new Error('registration not verified');
    const { credential } = verification.registrationInfo;
    return {
      id: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      ...(credential.transports ? { transports: credential.transports } : {}),
    };
  }

  /** Options to sign in: to `db`, or without one (Entu's client) to the database of whichever passkey answers. */
  async signInOptions(db?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: this.rp.id, userVerification: 'preferred', timeout: CHALLENGE_SECONDS * 1000 });
    await this.challenges.keep(options.challenge, db === undefined ? {} : { db });
    return options;
  }

  /** Checks a sign-in answer into `db` against the passkey it names; the counter it signed, or a throw. */
  async verifySignIn(db: string, response: AuthenticationResponseJSON, key: PasskeyKey, challengeToken?: string): Promise<number> {
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (challenge) => this.issuedTo(challenge, { db, ...(challengeToken === undefined ? {} : { challengeToken }) }),
      expectedOrigin: [...this.rp.origins],
      expectedRPID: this.rp.id,
      credential: { id: response.id, publicKey: Buffer.from(key.publicKey, 'base64url'), counter: key.counter, ...(key.transports ? { transports: key.transports } : {}) },
      requireUserVerification: false,
    });
    if (!verification.verified) throw new Error('assertion not verified');
    return verification.authenticationInfo.newCounter;
  }

  /**
   * Takes the challenge (whatever the answer): true when it was issued for this ceremony and not
   * used. A sign-in challenge issued without a database (Entu's client's) serves the passkey's own.
   */
  private async issuedTo(challenge: string, expected: Expected): Promise<boolean> {
    const issued = await this.challenges.take(challenge);
    if (issued === undefined || issued.person !== expected.person) return false;
    if (expected.challengeToken !== undefined && expected.challengeToken !== challenge) return false;
    return issued.db === expected.db || (issued.db === undefined && expected.person === undefined && expected.challengeToken !== undefined);
  }
}
