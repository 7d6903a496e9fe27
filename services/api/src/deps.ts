import { parseJwtSecrets, type Config } from '@entia/config';
import { INVITATION_SECONDS } from '@entia/domain';
import { InvitationKeys, openEntities, type Entities, type InvitationRecord } from '@entia/entities';
import type { ConnectionEvents } from '@entia/store';
import type { Logger } from 'pino';
import { SingleUse } from './auth/single-use';
import { ChangeHub } from './changes/hub';

/**
 * Everything the API talks to: the application as `openEntities` opens it (what the use cases
 * need, and the connections beneath) and the HTTP layer's own. Tests open the same thing against
 * the real local stack.
 */
export interface Deps extends Entities {
  logger: Logger;
  /** Reads the change logs for this process's change streams. */
  hub: ChangeHub;
}

/**
 * `connection`: what is told of MongoDB's first connect; by default the service's log lines (a
 * command that says it in its own words passes `{}`).
 */
export function openDeps(config: Config, logger: Logger, connection?: ConnectionEvents): Deps {
  const entities = openEntities(config, logger, connection ? { connection } : {});
  return {
    ...entities,
    logger,
    hub: new ChangeHub(entities.changes, config.REDIS_URL, logger, config.DEPENDENCY_TIMEOUT_MS),
    // Invitations: signed with keys derived from the token secrets, each kept in
    // Redis (its token's hash only) until used or a day has passed.
    invitations: {
      keys: new InvitationKeys(parseJwtSecrets(config)),
      pending: new SingleUse<InvitationRecord>(entities.breaker, `${config.REDIS_PREFIX}:invitation`, INVITATION_SECONDS),
    },
  };
}

/** The change streams' reader, then the application (job producer, store, Redis connections). */
export async function closeDeps(deps: Deps): Promise<void> {
  await Promise.allSettled([deps.hub.close(), deps.close()]);
}
