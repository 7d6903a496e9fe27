import type { RedisBreaker } from '@entia/jobs';
import type { Grant } from '../auth/tokens';
import { SingleUse } from '../auth/single-use';

/** How long a stream ticket may wait for its stream. */
export const TICKET_SECONDS = 60;

/** Who a ticket was issued to: the database it opens and the token's key, as a grant of that one database. */
interface Issued {
  db: string;
  personId: string;
  kid: string;
}

/**
 * Stream tickets: browsers' `EventSource` cannot send an Authorization header, and a
 * JWT in a URL would reach logs and histories. A ticket is a random word, valid for one stream of
 * one database, once, within `TICKET_SECONDS`; only its hash is kept in Redis.
 */
export class StreamTickets {
  private readonly tickets: SingleUse<Issued>;

  constructor(breaker: RedisBreaker, prefix: string) {
    this.tickets = new SingleUse(breaker, `${prefix}:changes:ticket`, TICKET_SECONDS);
  }

  issue(db: string, personId: string, kid: string): Promise<string> {
    return this.tickets.issue({ db, personId, kid });
  }

  /** The grant a ticket stands for, taken (a second use finds nothing); undefined when unknown, used, expired or for another database. */
  async redeem(ticket: string, db: string): Promise<Grant | undefined> {
    const issued = await this.tickets.take(ticket);
    return issued?.db === db ? { accounts: { [db]: issued.personId }, kid: issued.kid } : undefined;
  }
}
