import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from './connection';
import type { KeyRecord } from './control';
import type { NewEntity, Next, Stored } from './entities';
import type { OutboxEntry } from './outbox';
import type { PendingMark } from './pending';
import { connectionLost } from './query-errors';

/** A lease, held: `valid()` turns false once too little of its time is left to start a write. */
export interface HeldLease {
  valid(): boolean;
}

/**
 * Mutual exclusion by name across every process sharing the leases. `hold` waits a bounded time for
 * its turn and then throws `WriteBusy`; when the leases cannot be reached it throws their error
 * (a dependency failure, answered 503).
 */
export interface Leases {
  hold<T>(name: string, work: (lease: HeldLease) => Promise<T>): Promise<T>;
}

/** Another writer held the entity longer than this one could wait: nothing was written. */
export class WriteBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('the entity is being written by others; try again shortly');
  }
}

/** What one write of an entity does, decided from the entity as stored while holding its lease. */
export interface Plan<T> {
  next: Next;
  /** Work for the worker, committed in the same document write (the outbox marks the entity unsettled). */
  add?: readonly OutboxEntry[];
  /** Outbox entries delivered meanwhile (by id), removed in the same write. */
  delivered?: readonly string[];
  /** API keys the write generates: indexed before the commit, withdrawn if it does not happen. */
  keys?: readonly KeyRecord[];
  /** API-key values the write removes: revoked before the commit (a dead key, never a live orphan). */
  revokeKeys?: readonly string[];
  /** Marks this write settles: cleared once it is committed. */
  settles?: readonly PendingMark[];
  /**
   * Runs once the change is committed, still holding the entity's lease, so that what it does
   * (publishing the change) happens in the order of the entity's versions. Must not throw: the
   * write is stored whatever it does.
   */
  committed?: () => Promise<unknown>;
  /** What `update` resolves to. */
  outcome: T;
}

// Under the lease, a lost compare-and-set means a writer that ignored the lease or outlived it.
const MAX_ATTEMPTS = 3;

// After the connection dropped during a commit: how long to try finding out whether it happened.
// Long enough for a server that crashed to come back on its data (the common case: about 2 s for
// FerretDB here), so that its stored writes are answered as stored.
const CONFIRM_MS = 5000;

/**
 * The one way to change an entity, for the API and the worker alike: hold the entity's lease,
 * read it, let `plan` decide, then commit the change and its outbox in one document write. The
 * version compare-and-set stays as the fence, for a lease that expired under a slow write.
 */
export class EntityWriter {
  constructor(
    private readonly store: Store,
    private readonly leases: Leases,
  ) {}

  /** A new entity: nobody else can know its id yet, so no lease is needed. */
  create(db: string, entity: NewEntity, keys: readonly KeyRecord[] = []): Promise<void> {
    return this.createMany(db, [entity], keys);
  }

  /**
   * New entities in one insert, with the same guarantees each as `create`: their history recorded
   * before the insert, their outbox in their own document (which marks them unsettled), the `keys`
   * they generate indexed before and withdrawn if the insert fails. Answered stored only when all
   * of them are; a failed insert may have stored a prefix of them (each complete). The history of
   * one not stored stays unread: history is read only for entities that exist, or were deleted.
   */
  async createMany(db: string, entities: readonly NewEntity[], keys: readonly KeyRecord[] = []): Promise<void> {
    if (entities.length === 0) return;
    await this.withKeys({ keys }, async () => {
      // Before the insert: a new entity's history is complete from its first moment, and needs no worker.
      await this.store.history(db).record(entities.flatMap(({ history }) => history ?? []));
      const token = writeToken();
      const insert = async () => {
        await this.store.entities(db).insert(entities, token);
        return true;
      };
      // The insert is ordered: its last entity stored means every one before it was.
      const last = entities[entities.length - 1]!.stored.entity._id;
      // Not stored after all: the error stands (answered 503), no second try.
      return this.confirmed(db, last, (written) => written === token, insert, 'fail');
    });
  }

  /** Runs `plan` on the entity as stored (undefined: no such document) and commits its decision. */
  update<T>(db: string, id: string, plan: (current: Stored | undefined) => Promise<Plan<T>>): Promise<T> {
    return this.leases.hold(`${db}/${id}`, async (lease) => {
      const entities = this.store.entities(db);
      const registry = this.store.registry;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const current = await entities.stored(id);
        const decided = await plan(current);
        const delivered = new Set(decided.delivered ?? []);
        const waiting = (current?.outbox ?? []).filter((entry) => !delivered.has(entry.id));
        const outbox = [...waiting, ...(decided.add ?? [])];
        const writes = current !== undefined && (decided.next.kind !== 'keep' || delivered.size > 0 || (decided.add?.length ?? 0) > 0);
        if (writes) {
          if (!lease.valid()) throw new WriteBusy(1);
          for (const value of decided.revokeKeys ?? []) await registry.revokeKey(db, value);
          const token = writeToken();
          const happened = (last: string | undefined) => (decided.next.kind === 'purge' ? last === undefined : last === token);
          // Unsettled since the oldest entry still waiting: entries added later keep that time.
          const commit = () => entities.commit(id, current.version, decided.next, outbox, token, waiting.length > 0 ? current.unsettled : undefined);
          if (!(await this.withKeys(decided, () => this.confirmed(db, id, happened, commit, 'retry')))) continue;
          await decided.committed?.().catch(() => undefined);
        }
        await registry.pending.clear(decided.settles ?? []);
        return decided.outcome;
      }
      throw new WriteBusy(1);
    });
  }

  /**
   * Runs a commit; when the connection drops before its answer, finds out from the token of the
   * entity's last write whether it happened (`happened`), so that a stored write is not reported
   * as failed, nor a failed one as stored. Learned not to have happened: false when the caller
   * tries again (`retry`, under its lease), else the original error. Still unknown after
   * `CONFIRM_MS`: the original error.
   */
  private async confirmed(db: string, id: string, happened: (last: string | undefined) => boolean, commit: () => Promise<boolean>, notStored: 'retry' | 'fail'): Promise<boolean> {
    try {
      return await commit();
    } catch (error) {
      if (!connectionLost(error)) throw error;
      const deadline = Date.now() + CONFIRM_MS;
      while (Date.now() < deadline) {
        const last = await this.store.entities(db).lastWrite(id).then((token) => ({ token }), () => undefined);
        if (last && happened(last.token)) return true;
        if (last && notStored === 'retry') return false;
        if (last) throw error;
        await sleep(100);
      }
      throw error;
    }
  }

  private async withKeys(plan: Pick<Plan<unknown>, 'keys'>, write: () => Promise<boolean>): Promise<boolean> {
    const registry = this.store.registry;
    const keys = plan.keys ?? [];
    for (const key of keys) await registry.addKey(key);
    let stored = false;
    try {
      stored = await write();
      return stored;
    } finally {
      if (!stored) for (const key of keys) await registry.removeKey(key.db, key.value);
    }
  }
}

const writeToken = () => randomBytes(9).toString('base64url');
