import type { Entity, Properties } from './entity';
import { DomainError } from './errors';
import { VALUE_FIELDS, type Value } from './values/types';
import type { Caller } from './rights';
import type { ValueInput } from './value-input';

/**
 * Credentials (SPEC §6): the values of a person through which someone signs in as that
 * person. Each is indexed in the control database while it exists; deleting the value (or its
 * person) revokes it, and the tokens it gave stop at their next key check.
 *
 * - `_api_key`: a secret the server generates (its hash is stored).
 * - `_identity`: an OpenID Connect identity, `<issuer> <sub>`, written by the person's owners (or
 *   recorded by a sign-in that the database lets match by e-mail or register itself).
 * - `_passkey`: a WebAuthn credential's id, recorded only by a verified registration ceremony;
 *   its public key and signature counter live in its index record.
 */
export const CREDENTIAL_PROPERTIES = ['_api_key', '_identity', '_passkey'] as const;
export type CredentialProperty = (typeof CREDENTIAL_PROPERTIES)[number];

export function isCredentialProperty(name: string): name is CredentialProperty {
  return (CREDENTIAL_PROPERTIES as readonly string[]).includes(name);
}

/** The kind of a credential's index record; API keys predate kinds and carry none. */
export type CredentialKind = 'identity' | 'passkey';

/** The most values of each credential property one person holds: each is a way in to revoke when it leaks. */
export const MAX_CREDENTIALS = 10;

/** A credential that already belongs to a person (answered 409): one identity, one person of a database; one passkey, one person. */
export class CredentialTaken extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** A credential a write created, to index: `subject` is what its record's id is made from. */
export interface NewCredential {
  valueId: string;
  property: CredentialProperty;
  /** `_api_key`: the key's hash; `_identity`: `<issuer> <sub>`; `_passkey`: the credential id. */
  subject: string;
}

/** A credential the server verified someone holds: a provider's sign-in, a passkey's registration. */
export interface VerifiedCredential {
  property: Exclude<CredentialProperty, '_api_key'>;
  subject: string;
}

/** What the credential rules read of a write's context (`WriteContext`, which extends it). */
export interface CredentialWrite {
  caller: Required<Caller>;
  now: string;
  newId(): string;
  /** The entity is a person: the only kind that may hold credentials (`_api_key`, `_identity`, `_passkey`). */
  isPerson: boolean;
  /**
   * A credential the server verified the caller holds (a provider's sign-in, a passkey's
   * registration ceremony): they may add it to their own person, and it is the only way a
   * `_passkey` value is added.
   */
  verified?: VerifiedCredential;
  /** When creating: the id the new entity gets (a new person may read itself). */
  newEntityId?: string;
  newApiKey(): { plaintext: string; hash: string };
}

/** OpenID Connect caps `sub` at 255 ASCII characters (Core §2); an issuer is an https URL. */
const MAX_SUB = 255;
const MAX_ISSUER = 2048;

export interface Identity {
  issuer: string;
  sub: string;
}

/** The value of `_identity` for an identity. */
export function identityValue({ issuer, sub }: Identity): string {
  return `${issuer} ${sub}`;
}

/**
 * Reads an `_identity` value: `<issuer> <sub>`, the issuer an http(s) URL without spaces (http only
 * for loopback hosts, as in development), the sub 1–255 printable ASCII characters. A problem as
 * a message, for the write's field error.
 */
export function parseIdentity(text: string): Identity | string {
  const space = text.indexOf(' ');
  if (space < 0) return 'an identity is "<issuer> <sub>": the issuer URL, one space, the subject';
  const issuer = text.slice(0, space);
  const sub = text.slice(space + 1);
  const issuerProblem = issuerUrlProblem(issuer);
  if (issuerProblem) return issuerProblem;
  if (sub.length === 0 || sub.length > MAX_SUB || !/^[\x21-\x7e]+$/.test(sub)) return `the subject is 1 to ${MAX_SUB} printable ASCII characters without spaces`;
  return { issuer, sub };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `issuer` is not an issuer URL an identity may name; undefined when it is one. */
export function issuerUrlProblem(issuer: string): string | undefined {
  if (issuer.length > MAX_ISSUER) return `an issuer URL has at most ${MAX_ISSUER} characters`;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `"${issuer.slice(0, 80)}" is not an issuer URL`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return 'an issuer URL is https (http only on localhost)';
  return url.search || url.hash ? 'an issuer URL has no query or fragment' : undefined;
}

/**
 * A person may generate their own API keys, and add to themselves a credential the server verified
 * they hold, without any right on their person entity. Otherwise identities are linked by the
 * person's owners: a person naming an identity of their own could claim someone else's account.
 */
export function isOwnCredential(item: ValueInput, entity: Entity, ctx: CredentialWrite): boolean {
  if (entity._id !== ctx.caller.personId) return false;
  return item.type === '_api_key' || isVerified(item, ctx);
}

/** Why a credential value cannot be written as sent; undefined when it can. */
export function credentialProblem(item: ValueInput, existingId: string | undefined, properties: Properties, ctx: CredentialWrite): { message: string; field?: string } | undefined {
  const type = item.type as CredentialProperty;
  if (!ctx.isPerson) return { message: `${type} values exist only on person entities` };
  if (item._id !== undefined) return { message: `a credential cannot be overwritten: delete it and add a new one`, field: '_id' };
  if ((properties[type]?.length ?? 0) >= MAX_CREDENTIALS) return { message: `a person holds at most ${MAX_CREDENTIALS} ${type} values: delete one first` };
  const given = ([...VALUE_FIELDS, 'language'] as const).filter((f) => item[f] !== undefined);
  if (type === '_api_key') {
    return given.length > 0 ? { message: 'post {"type": "_api_key"} without a value: the server generates the key', field: given[0] } : undefined;
  }
  const extra = given.find((field) => field !== 'string');
  if (extra !== undefined) return { message: `${type} is a string value`, field: extra };
  if (typeof item.string !== 'string') return { message: `${type} needs its string`, field: 'string' };
  if (type === '_passkey') {
    return isVerified(item, ctx) ? undefined : { message: 'a passkey is added by its registration: POST /api/{db}/passkeys/options, then /api/{db}/passkeys' };
  }
  const selfLinked = ctx.caller.personId === (ctx.newEntityId ?? existingId);
  if (selfLinked && !isVerified(item, ctx)) {
    return { message: 'a person cannot link an identity to themselves: their owners do, or a sign-in the database lets match by e-mail' };
  }
  const identity = parseIdentity(item.string);
  if (typeof identity === 'string') return { message: identity, field: 'string' };
  if ((properties._identity ?? []).some((value) => value.string === item.string)) return { message: 'this identity is already on this person', field: 'string' };
  return undefined;
}

/** The stored value of a new credential, the value the response shows (an API key once in plain text), and its index subject. */
export function newCredential(item: ValueInput, type: CredentialProperty, ctx: CredentialWrite): { stored: Value; shown: Value; subject: string } {
  const created = { at: ctx.now, by: ctx.caller.personId };
  if (type === '_api_key') {
    const key = ctx.newApiKey();
    const stored: Value = { _id: ctx.newId(), type, string: key.hash, created };
    return { stored, shown: { ...stored, string: key.plaintext }, subject: key.hash };
  }
  const stored: Value = { _id: ctx.newId(), type, string: item.string as string, created };
  return { stored, shown: stored, subject: stored.string! };
}

/** Whether `item` is the very credential the server verified the caller holds. */
function isVerified(item: ValueInput, ctx: CredentialWrite): boolean {
  return ctx.verified !== undefined && item.type === ctx.verified.property && item.string === ctx.verified.subject;
}
