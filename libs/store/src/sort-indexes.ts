import { boundedCache, type SortKey } from '@entia/domain';
import { MongoServerError, type Collection, type Document } from 'mongodb';
import { compileSort } from './compile';
import { ENTITY_INDEXES, SORT_INDEX_CAP, SORT_INDEX_PREFIX, listIndexes, servesSort, sortIndexOf, type IndexDefinition } from './indexes';

/**
 * What a list's sort has in its database, as this process knows it:
 * - `served`: an index gives it (a fixed one, `_id`, or a sort index built before);
 * - `building`: no index yet; its build has been asked for (this list still sorts in memory);
 * - `capped`: no index, and the database has `SORT_INDEX_CAP` sort indexes: none is built;
 * - `unknown`: the database's indexes are being read (the first list of it in this process);
 *   what is missing is built then;
 * - `failed`: its build failed in this process (logged); tried again once the indexes are read again.
 */
export type SortIndexState = 'served' | 'building' | 'capped' | 'unknown' | 'failed';

/** A database's entity indexes as last listed, and what this process added or failed to add since. */
interface KnownIndexes {
  keys: Array<Record<string, unknown>>;
  /** How many of them are sort indexes (`sort_…`). */
  sorts: number;
  failed: Set<string>;
}

/** Where a failed build is reported: once per index per process, never with a value. */
export type SortIndexWarn = (details: Record<string, unknown>, message: string) => void;

/**
 * Sort indexes built on first use. The first list of a database whose sort no index gives asks for
 * the index `sortIndexOf` names; the request never waits for it (nor for reading what indexes
 * there are): it answers sorted in memory, as before, and later lists are walked in order once
 * the index is built. A database gets at most `cap` of them (`SORT_INDEX_CAP`). A build that
 * fails is logged at warn (once per index per process) and fails no request.
 *
 * One per process (`Store.sortIndexes`): the indexes each database has are kept in a bounded
 * cache (`entity-indexes` policy), re-read after its ttl, so that what another process built or an
 * operator dropped is seen. Builds of one database run one after another (the cap is counted
 * between them); two processes may each build one at the cap, so a database can end a few above
 * it, never near MongoDB's 64.
 */
export class SortIndexes {
  private readonly known;
  private readonly warned = boundedCache<string, true>('sort-index-failures');
  /** Each database's queue of builds (removed when it drains), and the builds asked for. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly asked = new Set<string>();

  constructor(
    private readonly collectionOf: (db: string) => Collection<Document>,
    private readonly warn: SortIndexWarn = () => undefined,
    private readonly cap = SORT_INDEX_CAP,
  ) {
    this.known = boundedCache<string, KnownIndexes>('entity-indexes', { load: (db) => this.read(db) });
  }

  /**
   * What `sort` has in database `db`, asking for its index when it has none. Synchronous and
   * free when the answer is known; any reading or building runs after it, in the background.
   */
  note(db: string, sort: readonly SortKey[]): SortIndexState {
    const compiled = compileSort(sort) as Record<string, number>;
    // The fixed indexes and `_id` are in every database (migration 1, create-database): no lookup.
    if (servesSort({ _id: 1 }, compiled) || ENTITY_INDEXES.some((index) => servesSort(index.key, compiled))) return 'served';
    const wanted = sortIndexOf(compiled);
    if (!wanted) return 'served';
    const known = this.known.get(db);
    if (known?.keys.some((key) => servesSort(key, compiled))) return 'served';
    if (known?.failed.has(wanted.name)) return 'failed';
    if (known && known.sorts >= this.cap) return 'capped';
    this.ask(db, compiled, wanted);
    return known ? 'building' : 'unknown';
  }

  /** Resolves when every build asked for in `db` so far has ended (tools and tests). */
  async settled(db: string): Promise<void> {
    while (this.queues.has(db)) await this.queues.get(db);
  }

  /** Forgets what is known of `db` (a database deleted or created again). */
  forget(db: string): void {
    this.known.delete(db);
  }

  private ask(db: string, compiled: Record<string, number>, wanted: IndexDefinition): void {
    const asked = `${db}\u0000${wanted.name}`;
    if (this.asked.has(asked)) return;
    this.asked.add(asked);
    const queue = (this.queues.get(db) ?? Promise.resolve())
      .then(() => this.build(db, compiled, wanted))
      .finally(() => {
        this.asked.delete(asked);
        if (this.queues.get(db) === queue) this.queues.delete(db);
      });
    this.queues.set(db, queue);
  }

  /** Builds the sort's index unless the database has it (or one that gives the sort) or is at the cap. Never throws. */
  private async build(db: string, compiled: Record<string, number>, wanted: IndexDefinition): Promise<void> {
    let known: KnownIndexes | undefined;
    try {
      known = await this.known.fetch(db);
    } catch (error) {
      this.failed(db, 'list', error, 'could not read the indexes of a database: its sorts are not indexed until they are');
      return;
    }
    if (!known || known.keys.some((key) => servesSort(key, compiled)) || known.failed.has(wanted.name) || known.sorts >= this.cap) return;
    try {
      await this.collectionOf(db).createIndex(wanted.key, { name: wanted.name });
      known.keys.push(wanted.key);
      known.sorts++;
    } catch (error) {
      known.failed.add(wanted.name);
      this.failed(db, wanted.name, error, 'could not build a sort index: lists with this sort are sorted in memory', Object.keys(wanted.key));
    }
  }

  private async read(db: string): Promise<KnownIndexes> {
    const indexes = await listIndexes(this.collectionOf(db));
    return {
      keys: indexes.map((index) => index.key as Record<string, unknown>),
      sorts: indexes.filter((index) => index.name?.startsWith(SORT_INDEX_PREFIX)).length,
      failed: new Set(),
    };
  }

  /** Logged once per database and index per process: the index's name and fields (property names), the server's code, no values. */
  private failed(db: string, index: string, error: unknown, message: string, fields?: string[]): void {
    const key = `${db}\u0000${index}`;
    if (this.warned.has(key)) return;
    this.warned.set(key, true);
    const reason = error instanceof MongoServerError ? { code: error.code, codeName: error.codeName } : { error: error instanceof Error ? error.name : typeof error };
    this.warn({ db, index, ...(fields ? { fields } : {}), ...reason }, message);
  }
}
