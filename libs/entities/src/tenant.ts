import { unauthenticated, type Caller } from '@entia/domain';
import type { DatabaseRecord, EntityCollection } from '@entia/store';

/** One call's view of one tenant database: its registry record, its entities and the caller. */
export interface Tenant {
  name: string;
  record: DatabaseRecord;
  entities: EntityCollection;
  caller: Caller;
  /**
   * The API key (its hash) the caller's token came from; undefined for anonymous callers and for
   * tools that write as a person without a token.
   */
  kid?: string;
}

/** Writes need a signed-in person (SPEC §6: a missing token on a write is 401). */
export function signedIn(tenant: Tenant): Required<Caller> {
  if (tenant.caller.personId === undefined) throw unauthenticated('Sign in: writes need a token from GET /api/auth.');
  return { personId: tenant.caller.personId };
}
