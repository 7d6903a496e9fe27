import { ObjectId, type Collection } from 'mongodb';
import { PENDING_INDEXES, ensureIndexes } from './indexes';

/**
 * One mark says "the derived data of this entity may be out of date": something it reads changed
 * (or its outbox holds work whose job could not be queued, or that a backup brought). An entity's
 * own writes mark it in its document instead (`__unsettled`, beside its outbox). Marks are only
 * ever inserted and deleted by `_id`, never updated, so no engine's lack of atomic updates can lose
 * one: a settle clears exactly the marks it saw before it read the data, and a mark added meanwhile
 * stays for the next settle.
 */
export interface PendingMark {
  _id: ObjectId;
  db: string;
  entity: string;
  /** Cascade steps that led here (a cycle that never settles is cut off by depth). */
  depth: number;
  /** Its derived fields must be rewritten even if its values do not change (a definition changed). */
  rederive?: true;
  /** When it was made: the sweep's order. */
  at: Date;
  /** Set when older than `at`: the change it stands for, kept when the sweep postponed the mark. */
  since?: Date;
}

/** Since when a mark's entity has been pending: what the entity and the metrics show. */
export const pendingSince = (mark: Pick<PendingMark, 'at' | 'since'>): Date => mark.since ?? mark.at;

/** Why an entity is marked, beyond "something it reads changed". */
export interface MarkFlags {
  rederive?: boolean;
}

/** The marks of every tenant, in the control database (one small collection the sweep reads). */
export class PendingWork {
  constructor(private readonly marks: Collection<PendingMark>) {}

  /** Builds the indexes of `PENDING_INDEXES` it lacks; resolves with the names built. */
  ensureIndexes(): Promise<string[]> {
    return ensureIndexes(this.marks, PENDING_INDEXES);
  }

  async mark(db: string, entities: Iterable<string>, depth: number, flags: MarkFlags = {}): Promise<void> {
    const at = new Date();
    const extra = flags.rederive ? { rederive: true as const } : {};
    const documents = [...new Set(entities)].map((entity) => ({ _id: new ObjectId(), db, entity, depth, at, ...extra }));
    if (documents.length > 0) await this.marks.insertMany(documents, { ordered: false });
  }

  of(db: string, entity: string): Promise<PendingMark[]> {
    return this.marks.find({ db, entity }).toArray();
  }

  async clear(marks: readonly PendingMark[]): Promise<void> {
    if (marks.length > 0) await this.marks.deleteMany({ _id: { $in: marks.map((mark) => mark._id) } });
  }

  /**
   * Moves an entity's marks to the back of the line (one new mark, then the old ones cleared), so
   * an entity that cannot be settled now does not hold up the ones behind it. The new mark keeps
   * the oldest `since`: the entity has been pending since then, however often it is postponed.
   */
  async postpone(db: string, entity: string): Promise<void> {
    const marks = await this.of(db, entity);
    if (marks.length === 0) return;
    const since = new Date(Math.min(...marks.map((mark) => pendingSince(mark).getTime())));
    const depth = Math.min(...marks.map((mark) => mark.depth));
    await this.marks.insertOne({ _id: new ObjectId(), db, entity, depth, at: new Date(), since, ...(marks.some((mark) => mark.rederive) ? { rederive: true as const } : {}) });
    await this.clear(marks);
  }

  /** Drops every mark of a database (it is being deleted); resolves with how many. */
  async forgetDatabase(db: string): Promise<number> {
    return (await this.marks.deleteMany({ db })).deletedCount;
  }

  /** The oldest marks made before `before`: what the sweep settles. */
  due(before: Date, limit: number): Promise<PendingMark[]> {
    return this.marks.find({ at: { $lte: before } }, { sort: { at: 1 }, limit }).toArray();
  }

  /** How many marks wait, and since when the oldest has been pending (a postponed mark's `since`). */
  async stats(): Promise<{ count: number; oldest: Date | undefined }> {
    const [count, made, postponed] = await Promise.all([
      this.marks.countDocuments(),
      this.marks.findOne({}, { sort: { at: 1 } }),
      // Few: only marks the sweep could not settle carry one.
      this.marks.findOne({ since: { $exists: true } }, { sort: { since: 1 } }),
    ]);
    const times = [made?.at, postponed?.since].filter((time): time is Date => time !== undefined).map((time) => time.getTime());
    return { count, oldest: times.length > 0 ? new Date(Math.min(...times)) : undefined };
  }
}
