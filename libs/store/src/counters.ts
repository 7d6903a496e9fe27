import type { Collection, Db } from 'mongodb';
import { duplicateKey } from './query-errors';
import { TENANT_COLLECTIONS } from './collections';

interface CounterDocument {
  _id: string;
  n: number;
}

/** How often a number is asked again after it proved taken, before the write is answered busy. */
const ATTEMPTS = 100;

/** Every attempt found its number taken: so many writers at once that the write should be tried again. */
export class CounterBusy extends Error {
  override readonly name = 'CounterBusy';
}

/**
 * The counters of a tenant database: the next number of a counter property, unique
 * however many writers and API processes ask at once. MongoDB's `$inc` in `findOneAndUpdate` is one
 * atomic step; FerretDB runs it as a read then a write, so two writers can be handed the same
 * number. Each number is therefore also claimed by inserting its own `_id` into `counter_claim`,
 * where the primary key lets one insert win on any engine: the loser asks again. Numbers of failed
 * writes are skipped, not reused (gaps, never duplicates).
 */
export class Counters {
  private readonly counters: Collection<CounterDocument>;
  private readonly claims: Collection<{ _id: string }>;

  constructor(
    db: Db,
    private readonly maxTimeMS: number,
  ) {
    this.counters = db.collection<CounterDocument>(TENANT_COLLECTIONS.counters);
    this.claims = db.collection<{ _id: string }>(TENANT_COLLECTIONS.counterClaims);
  }

  /**
   * The next number of counter `key`, `step` after the last one handed out. A counter without a
   * record starts after `floor()`, the highest number its property holds: the entities are the
   * truth, so a database restored from an export (which has no counters) never hands out a
   * number it already holds.
   */
  async next(key: string, step: number, floor: () => Promise<number>): Promise<number> {
    if ((await this.counters.findOne({ _id: key }, { maxTimeMS: this.maxTimeMS, projection: { _id: 1 } })) === null) {
      const highest = await floor();
      try {
        // `$max`: a writer that got here first, and counted on since, is never set back.
        await this.counters.updateOne({ _id: key }, { $max: { n: highest } }, { upsert: true, maxTimeMS: this.maxTimeMS });
      } catch (error) {
        if (!duplicateKey(error)) throw error;
      }
    }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let counted: CounterDocument | null;
      try {
        counted = await this.counters.findOneAndUpdate({ _id: key }, { $inc: { n: step } }, { upsert: true, returnDocument: 'after', maxTimeMS: this.maxTimeMS });
      } catch (error) {
        // Two first uses of one counter both inserting it: one stands, the other counts on it.
        if (duplicateKey(error)) continue;
        throw error;
      }
      const n = counted!.n;
      try {
        await this.claims.insertOne({ _id: `${key}:${n}` });
        return n;
      } catch (error) {
        if (!duplicateKey(error)) throw error;
      }
    }
    throw new CounterBusy(`counter ${key} stayed contended for ${ATTEMPTS} attempts`);
  }
}
