import type { Properties } from './entity';
import type { Filter } from './query/ast';
import type { ValueInput } from './write';

/**
 * What a database's owners allow OpenID Connect sign-in to do beyond identities they linked,
 * as boolean properties of the `database` entity. New databases define both; an older
 * one gains them by defining the properties on its `database` type.
 */
export const SIGN_IN_SETTINGS = {
  /** An unknown identity becomes a new person of the database. */
  selfRegistration: 'oidc_self_registration',
  /** An unknown identity with a verified e-mail signs in as the one person with that `email` (and is linked to them). */
  emailMatch: 'oidc_email_match',
} as const;

export interface SignInSettings {
  selfRegistration: boolean;
  emailMatch: boolean;
}

/** The settings of a database entity's properties: off unless set to true. */
export function signInSettings(database: Properties | undefined): SignInSettings {
  const on = (name: string) => database?.[name]?.[0]?.boolean === true;
  return { selfRegistration: on(SIGN_IN_SETTINGS.selfRegistration), emailMatch: on(SIGN_IN_SETTINGS.emailMatch) };
}

const REGEX_SPECIALS = /[\\^$.*+?()[\]{}|/-]/g;

/** The persons (`_type` is `personType`) whose `email` is `email`, whatever its case: e-mail addresses are compared case-insensitively in practice. */
export function personsWithEmail(personType: string, email: string): Filter[] {
  return [
    { property: '_type', field: 'reference', op: 'eq', value: personType },
    { property: 'email', field: 'string', op: 'regex', pattern: `^${email.replace(REGEX_SPECIALS, '\\$&')}$`, flags: 'i' },
  ];
}

/** What a provider says of a person it signed in. */
export interface ProviderProfile {
  name?: string;
  email?: string;
  emailVerified: boolean;
}

/**
 * The values of a person registering themselves: a name (the provider's, else the e-mail's local
 * part, else "New person"), the e-mail when the provider verified it and the person type defines
 * `email`, and the identity. Owned by themselves and by the database's owners, who may remove them.
 */
export function selfRegisteredPerson(args: {
  personType: string;
  identity: string;
  profile: ProviderProfile;
  definesEmail: boolean;
  databaseOwners: readonly string[];
}): ValueInput[] {
  const { profile } = args;
  const email = profile.emailVerified && profile.email ? profile.email : undefined;
  const name = profile.name?.trim() || email?.split('@')[0] || 'New person';
  return [
    { type: '_type', reference: args.personType },
    { type: 'name', string: name.slice(0, 200) },
    ...(email && args.definesEmail ? [{ type: 'email', string: email }] : []),
    { type: '_identity', string: args.identity },
    ...args.databaseOwners.map((owner) => ({ type: '_owner', reference: owner })),
  ];
}
