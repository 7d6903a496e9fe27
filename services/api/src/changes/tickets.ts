import type { RedisBreaker } from '@entia/jobs';
import { createHash, randomBytes } from 'node:crypto';
import type { Grant } from '../auth/tokens';

/** How long a stream ticket may wait for its stream. */
export const TICKET_SECONDS = 60;

/** Who a ticket was issued to: the database it opens and the token's key, as a grant of that one database. */
interface Issued {
  db: string;
  personId: string;
  kid: string;
}

/**
 * Stream tickets (issue 18): browsers' `EventSource` cannot send an Authorization header, and a
 * JWT in a URL would reach logs and histories. A ticket is a random word, valid for one stream of
 * one database, once, within `TICKET_SECONDS`; only its hash is kept in Redis.
 */
export class StreamTickets {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly prefix: string,
  ) {}

  private key(ticket: string): string {
    return `${this.prefix}:changes:ticket:${createHash('sha256').update(ticket).digest('base64url')}`;
  }

  async issue(db: string, personId: string, kid: string): Promise<string> {
    const ticket = randomBytes(32).toString('base64url');
    const issued: Issued = { db, personId, kid };
    await this.breaker.run((redis) => redis.set(this.key(ticket), JSON.stringify(issued), 'EX', TICKET_SECONDS));
    return ticket;
  }

  /** The grant a ticket stands for, taken (a second use finds nothing); undefined when unknown, used, expired or for another database. */
  async redeem(ticket: string, db: string): Promise<Grant | undefined> {
    const stored = await this.breaker.run((redis) => redis.getdel(this.key(ticket)));
    if (!stored) return undefined;
    const issued = JSON.parse(stored) as Issued;
    return issued.db === db ? { accounts: { [db]: issued.personId }, kid: issued.kid } : undefined;
  }
}
