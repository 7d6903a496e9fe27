import { randomBytes } from 'node:crypto';
import {
  assertMayInvite,
  checkInvitationClaims,
  conflict,
  first,
  identityValue,
  invalid,
  invitationClaims,
  inviteeAddress,
  typeOf,
  unauthenticated,
  type Identity,
  type InvitationClaims,
  type ProviderProfile,
} from '@entia/domain';
import type { EntitiesDeps, InvitationDeps } from './deps';
import { linkVerifiedIdentity, signInIfLive } from './identity-sign-in';
import { credentialRecordId } from './keys';
import { readable } from './read';
import type { SignIn } from './sign-in';
import { signedIn, type Tenant } from './tenant';

/** A new invitation: its token (secret: the link's only part that matters), whom it goes to, and until when it holds. */
export interface NewInvitation {
  token: string;
  /** The invitation's id, which names it without letting anyone use it. */
  id: string;
  /** The person's first e-mail, where the invitation goes. */
  email: string;
  person: { _id: string; name: string };
  /** The inviter's name, for the e-mail. */
  inviter: { _id: string; name: string };
  /** ISO 8601. */
  expires: string;
}

const USED = 'This invitation was used already, withdrawn or has expired: ask for a new one.';

function invitationsOf(deps: EntitiesDeps): InvitationDeps {
  if (!deps.invitations) throw unauthenticated('Invitations are not available here.');
  return deps.invitations;
}

/**
 * An invitation to person `personId`, by a caller who owns the person: a signed
 * token (database, person, a random id, 24 h), kept server-side until used so that it opens once.
 * Nothing is written to the person. The caller sends it (or shows it) and withdraws it
 * (`withdrawInvitation`) when that fails.
 */
export async function createInvitation(deps: EntitiesDeps, tenant: Tenant, personId: string, now = Date.now()): Promise<NewInvitation> {
  const caller = signedIn(tenant);
  const invitations = invitationsOf(deps);
  const { entity } = await readable(tenant, personId, true);
  assertMayInvite(entity.properties, caller);
  if (typeOf(entity.properties) !== tenant.record.meta.person) throw invalid('Only a person can be invited: this entity is not one.');
  const email = inviteeAddress(entity.properties);
  const claims = invitationClaims(tenant.name, personId, randomBytes(12).toString('hex'), Math.floor(now / 1000));
  const token = invitations.keys.sign(claims);
  const inviter = await tenant.entities.get(caller.personId);
  await invitations.pending.keep(token, { db: claims.db, person: claims.person });
  return {
    token,
    id: claims.jti,
    email,
    person: { _id: personId, name: first(entity.properties, 'name')?.string ?? '' },
    inviter: { _id: caller.personId, name: (inviter && first(inviter.entity.properties, 'name')?.string) ?? '' },
    expires: new Date(claims.exp * 1000).toISOString(),
  };
}

/** Takes back an invitation that could not be delivered, so that it opens nothing. */
export async function withdrawInvitation(deps: EntitiesDeps, token: string): Promise<void> {
  await invitationsOf(deps).pending.take(token);
}

/**
 * Accepts an invitation with a provider identity the server has just verified:
 * the token must be signed by us, to `tenant`'s database, unexpired and unused (each failure 401).
 * It is taken (once, atomically), and the identity is bound to the invited person as a sign-in
 * matched by e-mail binds it; an identity already bound to this same person is fine, one bound to
 * another person of the database is a 409 (and leaves the invitation unused). `tenant` is the
 * database, with no caller. `profile` is the provider's; the person keeps their own name.
 */
export async function acceptInvitation(deps: EntitiesDeps, tenant: Tenant, invitation: string, identity: Identity, _profile: ProviderProfile): Promise<SignIn> {
  const invitations = invitationsOf(deps);
  const claims = verifiedClaims(invitations, tenant, invitation);
  const subject = identityValue(identity);
  const recordId = credentialRecordId(tenant.name, { property: '_identity', subject });
  const alreadyTheirs = await boundAlready(deps, recordId, claims.person);
  const person = await tenant.entities.get(claims.person);
  if (!person || typeOf(person.entity.properties) !== tenant.record.meta.person) throw unauthenticated('The person this invitation is for is gone.');

  const kept = await invitations.pending.take(invitation);
  if (!kept || kept.db !== claims.db || kept.person !== claims.person) throw unauthenticated(USED);

  if (!alreadyTheirs) await linkVerifiedIdentity(deps, tenant, claims.person, subject);
  const signIn = await signInIfLive(deps, tenant, recordId);
  if (signIn === 'unknown') throw unauthenticated('This identity could not be bound to the invited person.');
  // Another person's sign-in recorded the identity in the meantime: it stays theirs.
  if (signIn.person._id !== claims.person) throw conflict('This identity already signs in as another person of this database.');
  return signIn;
}

/** The claims of an invitation token we signed, checked for `tenant` now. */
function verifiedClaims(invitations: InvitationDeps, tenant: Tenant, invitation: string): InvitationClaims {
  const payload = invitations.keys.verifiedPayload(invitation);
  if (payload === undefined) throw unauthenticated('This invitation is not valid: ask for a new one.');
  return checkInvitationClaims(payload, tenant.name, Math.floor(Date.now() / 1000));
}

/**
 * Whether the identity already signs in as `person` (nothing to bind). One of another person of the
 * database is not rebound by an invitation: 409, before the invitation is spent.
 */
async function boundAlready(deps: EntitiesDeps, recordId: string, person: string): Promise<boolean> {
  const record = await deps.store.registry.keyRecord(recordId);
  if (!record || record.revokedAt) return false;
  if (record.person !== person) throw conflict('This identity already signs in as another person of this database.');
  return true;
}
