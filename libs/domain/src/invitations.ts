import { first, type Properties } from './entity';
import { forbidden, invalid, unauthenticated } from './errors';
import { hasRight, type Caller } from './rights';

/**
 * Invitations: a person's owner sends the person a link with which they sign in
 * once, with a provider or a passkey, and so bind that way in to the person. The link carries a
 * JWT-shaped token because Entu's client reads the database from the token's payload (`db`).
 */

/** How long an invitation may be used: a day, as Entu's. */
export const INVITATION_SECONDS = 24 * 60 * 60;

/** The audience of invitation tokens: never `entia`, so no invitation is ever taken for an API token, nor the other way round. */
export const INVITATION_AUDIENCE = 'entia-invitation';

/** What an invitation token says. */
export interface InvitationClaims {
  /** The database the invitation is to; Entu's client reads it. */
  db: string;
  /** The invited person's id. */
  person: string;
  /** The invitation's own random id. */
  jti: string;
  aud: typeof INVITATION_AUDIENCE;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
}

/** The claims of a new invitation made at `nowSeconds`. */
export function invitationClaims(db: string, person: string, jti: string, nowSeconds: number): InvitationClaims {
  return { db, person, jti, aud: INVITATION_AUDIENCE, iat: nowSeconds, exp: nowSeconds + INVITATION_SECONDS };
}

const REFUSED = 'This invitation is not valid: ask for a new one.';

/**
 * The claims of a token whose signature was verified, checked for use in database `db` at
 * `nowSeconds`: each way of being wrong is a 401 (an invitation is a credential, and a refusal says
 * no more than the token's holder could read from it).
 */
export function checkInvitationClaims(payload: unknown, db: string, nowSeconds: number): InvitationClaims {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw unauthenticated(REFUSED);
  const claims = payload as Record<string, unknown>;
  const text = (name: string) => (Object.hasOwn(claims, name) && typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined);
  const seconds = (name: string) => (Object.hasOwn(claims, name) && Number.isSafeInteger(claims[name]) ? (claims[name] as number) : undefined);
  const [claimedDb, person, jti, iat, exp] = [text('db'), text('person'), text('jti'), seconds('iat'), seconds('exp')];
  if (claimedDb === undefined || person === undefined || jti === undefined || iat === undefined || exp === undefined || claims.aud !== INVITATION_AUDIENCE) {
    throw unauthenticated(REFUSED);
  }
  if (claimedDb !== db) throw unauthenticated(`This invitation is to another database than "${db}".`);
  if (exp <= nowSeconds || exp - iat > INVITATION_SECONDS) throw unauthenticated('This invitation has expired: ask for a new one.');
  return { db: claimedDb, person, jti, aud: INVITATION_AUDIENCE, iat, exp };
}

/**
 * Who may invite someone to be a person: the person's owners. An invitation binds whoever follows
 * the link to the person, so it is as strong as linking an identity (SPEC §6, owners only); an
 * editor, who may change the person's e-mail, could otherwise invite themselves into the person.
 */
export function assertMayInvite(properties: Properties, caller: Caller): void {
  if (!hasRight(properties, caller, 'owner')) throw forbidden('Inviting a person needs the owner right on the person.');
}

/** RFC 5321's longest path; and a plain addr-spec: no spaces, no controls, no display name, no angle brackets. */
const MAX_ADDRESS = 254;
const ADDRESS = /^[^\s@<>()[\],;:"\\\x00-\x1f\x7f]+@[^\s@<>()[\],;:"\\\x00-\x1f\x7f]+\.[^\s@<>()[\],;:"\\\x00-\x1f\x7f]+$/;

/** Whom an invitation to this person goes to: the person's first `email` value (Entu's rule); a 400 when there is none or it is no address. */
export function inviteeAddress(properties: Properties): string {
  const email = first(properties, 'email')?.string?.trim();
  if (email === undefined || email === '') throw invalid('This person has no e-mail to send an invitation to: add one first.');
  if (email.length > MAX_ADDRESS || !ADDRESS.test(email)) throw invalid('The person\'s e-mail is not an address an invitation can be sent to.');
  return email;
}

/** The link of an invitation, on Entu's client's invite page: `<app>/<db>/invite?token=<token>`. */
export function invitationLink(appUrl: string, db: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}/${encodeURIComponent(db)}/invite?token=${encodeURIComponent(token)}`;
}
