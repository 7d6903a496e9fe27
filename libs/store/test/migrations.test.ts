import { Redis } from 'ioredis';
import { ObjectId, type Document } from 'mongodb';
import { indexed } from '@entia/domain';
import {
  EntityWriter,
  MIGRATIONS,
  MigrationBusy,
  RedisLeases,
  SCHEMA_VERSION,
  SchemaRecords,
  Store,
  migrate,
  valueTypeMigration,
  withoutValueTypes,
  type Leases,
  type MigrateEvent,
  type Migration,
} from '@entia/store';
import { STACK_REACH_MS } from './stack-reach';

// The migration runner, its lock and version record, and the two migrations, against the test
// stack's MongoDB-protocol server (FerretDB here). Each test has a control database of its own.
const url = process.env.MONGODB_URL!;
const suffix = `${process.pid}_${Date.now().toString(36)}`;
let n = 0;
const stores: Store[] = [];
const dropped: string[] = [];
const redis = new Redis(process.env.REDIS_URL!);
// The leases the services' writers take: a migration rewriting an entity holds its one.
const leases = new RedisLeases({ run: (call) => call(redis) }, `t_mig_${suffix}`, { ttlMs: 5000, waitMs: 20_000 });

function freshStore(): Store {
  const store = Store.open({ url, controlDb: `t_mig_ctl_${suffix}_${++n}`, timeoutMs: 5000, reachMs: STACK_REACH_MS });
  stores.push(store);
  dropped.push(store.controlDbName);
  return store;
}

async function register(store: Store, name: string): Promise<void> {
  dropped.push(name);
  const id = () => new ObjectId().toHexString();
  await store.registry.register({ _id: name, meta: { entity: id(), property: id(), person: id(), database: id(), webhook: id() }, databaseEntity: id(), createdAt: new Date() });
}

afterAll(async () => {
  const [first] = stores;
  if (first) for (const name of dropped) await first.database(name).dropDatabase();
  for (const store of stores) await store.close();
  redis.disconnect();
});

/** The test's leases, and a promise settled when a migration asks for the lease `watchedName`. */
function watchLease(watchedName: string): { watched: Leases; leaseAsked: Promise<void> } {
  let asked!: () => void;
  const leaseAsked = new Promise<void>((resolve) => (asked = resolve));
  const watched: Leases = {
    hold: (name, work) => {
      if (name === watchedName) asked();
      return leases.hold(name, work);
    },
  };
  return { watched, leaseAsked };
}

/** A migration that records what it saw, and fails on demand. */
function step(version: number, seen: number[], fail?: () => boolean): Migration {
  return {
    version,
    name: `step ${version}`,
    async up({ progress }) {
      if (fail?.()) throw new Error(`step ${version} failed`);
      seen.push(version);
      progress({ database: 'all', message: `step ${version} ran` });
    },
  };
}

describe('withoutValueTypes (migration 2)', () => {
  const value = (extra: object = {}) => ({ _id: 'v', string: 'x', created: { at: 'now', by: 'p' }, ...extra });
  it.each<[string, Document, Record<string, Document[]>]>([
    ['a document without typed values: nothing', { _id: 1, __v: 3, name: [value()] }, {}],
    ['typed values lose their type, the others stay', { _id: 1, name: [value({ type: 'name' }), value()] }, { name: [value(), value()] }],
    ['every property that has one', { _id: 1, a: [value({ type: 'a' })], b: [value({ type: 'b' })], c: [value()] }, { a: [value()], b: [value()] }],
    ['internal fields and non-arrays are never touched', { _id: 1, __sort: [{ type: 'x' }], __outbox: [{ type: 'formula' }], note: { type: 'x' } }, {}],
    ['a value named `type` that is not an object is left', { _id: 1, a: ['type', 1, null] }, {}],
  ])('%s', (_, document, changed) => {
    expect(withoutValueTypes(document)).toEqual(changed);
  });
});

describe('migrate (runner, lock, version record)', () => {
  it('a new installation is fresh; claimFresh records it at the current version, once', async () => {
    const store = freshStore();
    const records = new SchemaRecords(store.control);
    expect(await records.read()).toEqual({ fresh: true, version: undefined, applied: [] });
    await records.claimFresh(SCHEMA_VERSION);
    await records.claimFresh(SCHEMA_VERSION);
    const stored = await records.read();
    expect([stored.fresh, stored.version, stored.applied.map((a) => a.name)]).toEqual([false, SCHEMA_VERSION, ['created at this version']]);
  });

  it('an installation with databases and no record is at version 0, and claimFresh leaves it so', async () => {
    const store = freshStore();
    await register(store, `t_mig_db_${suffix}_a`);
    const records = new SchemaRecords(store.control);
    await records.claimFresh(SCHEMA_VERSION);
    expect(await records.read()).toEqual({ fresh: false, version: 0, applied: [] });
  });

  it('applies the pending migrations in order, records each, reports progress; a second run does nothing', async () => {
    const store = freshStore();
    await register(store, `t_mig_db_${suffix}_b`);
    const seen: number[] = [];
    const events: MigrateEvent[] = [];
    const migrations = [step(1, seen), step(2, seen), step(3, seen)];
    expect(await migrate(store, { leases, migrations, onEvent: (e) => events.push(e) })).toEqual({ from: 0, to: 3, applied: [1, 2, 3] });
    expect(seen).toEqual([1, 2, 3]);
    expect(events.map((e) => e.kind)).toEqual(['start', 'migration', 'progress', 'done', 'migration', 'progress', 'done', 'migration', 'progress', 'done']);
    expect(events[0]).toEqual({ kind: 'start', from: 0, to: 3, pending: [1, 2, 3].map((version) => ({ version, name: `step ${version}` })) });
    const stored = await new SchemaRecords(store.control).read();
    expect([stored.version, stored.applied.map((a) => a.version)]).toEqual([3, [1, 2, 3]]);

    expect(await migrate(store, { leases, migrations })).toEqual({ from: 3, to: 3, applied: [] });
    expect(seen).toEqual([1, 2, 3]);
    // The lock was given back both times.
    expect(await store.control.collection('schema').findOne({ _id: 'lock' as never })).toBeNull();
  });

  it('a failed migration leaves the version at the last one done; the next run resumes there', async () => {
    const store = freshStore();
    await register(store, `t_mig_db_${suffix}_c`);
    const seen: number[] = [];
    let failing = true;
    const migrations = [step(1, seen), step(2, seen, () => failing), step(3, seen)];
    await expect(migrate(store, { leases, migrations })).rejects.toThrow('step 2 failed');
    expect((await new SchemaRecords(store.control).read()).version).toBe(1);
    failing = false;
    expect(await migrate(store, { leases, migrations })).toEqual({ from: 1, to: 3, applied: [2, 3] });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('leaves a newer stored version alone', async () => {
    const store = freshStore();
    await register(store, `t_mig_db_${suffix}_d`);
    const seen: number[] = [];
    await migrate(store, { leases, migrations: [step(1, seen), step(2, seen)] });
    expect(await migrate(store, { leases, migrations: [step(1, seen)] })).toEqual({ from: 2, to: 2, applied: [] });
    expect(seen).toEqual([1, 2]);
  });

  it('one run at a time: a second one is refused naming the holder; an expired lock is taken over', async () => {
    const store = freshStore();
    await register(store, `t_mig_db_${suffix}_e`);
    const records = new SchemaRecords(store.control);
    const held = await records.lock(60_000, 'run A on host-a');
    if ('heldBy' in held) throw new Error('the first lock was refused');
    const refused = migrate(store, { leases, migrations: [step(1, [])], holder: 'run B' });
    await expect(refused).rejects.toThrow(MigrationBusy);
    await expect(refused).rejects.toThrow(/^another migration is running \(run A on host-a, since .+\); try again when it has finished$/);
    expect((await records.read()).version).toBe(0);
    await held.release();

    // A run that crashed: its lock is past its expiry, and the next run takes it.
    const crashed = await records.lock(1, 'crashed run');
    if ('heldBy' in crashed) throw new Error('the lock was refused');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await migrate(store, { leases, migrations: [step(1, [])] })).toEqual({ from: 0, to: 1, applied: [1] });
    // The crashed run, were it alive, finds it has lost the lock.
    await expect(crashed.keep()).rejects.toThrow(/the migration lock was lost/);
  });

  it('two runs at once: one applies, the other is refused, the version ends right', async () => {
    const store = freshStore();
    await register(store, `t_mig_db_${suffix}_f`);
    const other = Store.open({ url, controlDb: store.controlDbName, timeoutMs: 5000, reachMs: STACK_REACH_MS });
    stores.push(other);
    const seen: number[] = [];
    const slow: Migration = {
      version: 1,
      name: 'slow',
      up: async () => {
        // Long enough for the other run to find the lock taken.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        seen.push(1);
      },
    };
    const outcomes = await Promise.allSettled([migrate(store, { leases, migrations: [slow] }), migrate(other, { leases, migrations: [slow] })]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(MigrationBusy);
    expect(seen).toEqual([1]);
    expect((await new SchemaRecords(store.control).read()).version).toBe(1);
  });
});

describe('the migrations of this version', () => {
  it('number 1.. without gaps, and SCHEMA_VERSION is the last', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('bring an old database up: indexes built, stored types stripped, idempotent', async () => {
    const store = freshStore();
    const db = `t_mig_db_${suffix}_g`;
    await register(store, db);
    const entities = store.database(db).collection('entity');
    const value = (type: string, string: string) => ({ _id: new ObjectId(), type, string, created: { at: new Date(), by: new ObjectId() } });
    // Batches of 20 here (200 in MIGRATIONS), so a few documents take several: on FerretDB each
    // compare-and-set update scans the collection (it pushes down only a lone `_id` filter).
    const migrations = [MIGRATIONS[0]!, valueTypeMigration(20), ...MIGRATIONS.slice(2)];
    const documents = Array.from({ length: 45 }, (_, i) => ({ _id: new ObjectId(), __v: 1, __read: ['public'], name: [value('name', `n${i}`)], note: [value('note', 'x')] }));
    await entities.insertMany(documents);
    const before = (await store.database(db).collection('entity').indexes()).map((index) => index.name);

    const events: MigrateEvent[] = [];
    expect(await migrate(store, { leases, migrations, onEvent: (e) => events.push(e) })).toEqual({ from: 0, to: SCHEMA_VERSION, applied: MIGRATIONS.map((m) => m.version) });
    const after = (await entities.indexes()).map((index) => index.name);
    expect(after.length).toBeGreaterThan(before.length);
    expect(await entities.countDocuments({ 'name.type': { $exists: true } })).toBe(0);
    expect(await entities.countDocuments({ 'note.type': { $exists: true } })).toBe(0);
    const one = await entities.findOne({ _id: documents[7]!._id });
    expect(one!.name).toEqual([{ _id: documents[7]!.name[0]!._id, string: 'n7', created: documents[7]!.name[0]!.created }]);
    expect(events.filter((e) => e.kind === 'progress' && e.version === 2).map((e) => (e as { message: string }).message)).toEqual([
      '20 entities scanned, 20 upgraded',
      '40 entities scanned, 40 upgraded',
      '45 entities scanned, 45 upgraded',
    ]);
    // Migration 3: every entity marked for the worker to refresh its derived values.
    expect(events.filter((e) => e.kind === 'progress' && e.version === 3).map((e) => (e as { message: string }).message)).toEqual(['45 entities marked for the worker to refresh']);
    const marks = await store.registry.pending.due(new Date(), 1000);
    expect(new Set(marks.filter((mark) => mark.db === db && mark.rederive).map((mark) => mark.entity))).toEqual(new Set(documents.map((d) => String(d._id))));

    // Run again from scratch (as after a crash before the record): nothing left to change.
    await store.control.collection('schema').deleteOne({ _id: 'version' as never });
    const again: MigrateEvent[] = [];
    await migrate(store, { leases, migrations, onEvent: (e) => again.push(e) });
    expect(again.filter((e) => e.kind === 'progress' && e.version === 2).at(-1)).toEqual(expect.objectContaining({ message: '45 entities scanned, 0 upgraded' }));
    expect(again.filter((e) => e.kind === 'progress' && e.version === 1).map((e) => (e as { message: string }).message)).toEqual(['indexes present', 'indexes present']);
  });

  it('never undoes a write of a process still serving while it runs (the writers\' leases)', async () => {
    const store = freshStore();
    const db = `t_mig_db_${suffix}_w`;
    await register(store, db);
    const entities = store.database(db).collection('entity');
    const at = new Date();
    const by = new ObjectId();
    const documents = Array.from({ length: 30 }, (_, i) => ({
      _id: new ObjectId(),
      __v: 1,
      __read: ['public'],
      name: [{ _id: new ObjectId(), type: 'name', string: `n${i}`, created: { at, by } }],
      note: [{ _id: new ObjectId(), type: 'note', string: 'x', created: { at, by } }],
    }));
    await entities.insertMany(documents);
    const writer = new EntityWriter(store, leases);
    // Each entity renamed through the one write path while the migration rewrites the same documents.
    const rename = (id: string, name: string) =>
      writer.update(db, id, async (current) => ({
        next: { kind: 'replace', stored: indexed({ _id: id, properties: { ...current!.entity.properties, name: [{ ...current!.entity.properties.name![0]!, string: name }] } }, new Set()) },
        outcome: name,
      }));
    const [migrated, ...renamed] = await Promise.allSettled([
      migrate(store, { leases, migrations: [MIGRATIONS[0]!, valueTypeMigration(5)] }),
      ...documents.map((document, i) => rename(document._id.toHexString(), `renamed ${i}`)),
    ]);
    expect(migrated.status).toBe('fulfilled');
    expect(renamed.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const stored = await entities.find({}, { sort: { _id: 1 } }).toArray();
    expect(stored.map((document) => (document.name as { string: string }[])[0]!.string)).toEqual(documents.map((_, i) => `renamed ${i}`));
    expect(stored.flatMap((document) => [...(document.name as Document[]), ...(document.note as Document[])]).filter((value) => 'type' in value)).toEqual([]);
  });

  it('rewrites an entity only under its write lease: a writer holding it is waited for, and its write stays', async () => {
    const store = freshStore();
    const db = `t_mig_db_${suffix}_l`;
    await register(store, db);
    const entities = store.database(db).collection('entity');
    const at = new Date();
    const by = new ObjectId();
    const id = new ObjectId();
    await entities.insertOne({ _id: id, __v: 1, __read: ['public'], name: [{ _id: new ObjectId(), type: 'name', string: 'before', created: { at, by } }] });
    // The migration's leases, told when it asks for this entity's.
    const { watched, leaseAsked } = watchLease(`${db}/${id.toHexString()}`);
    let migrating!: Promise<unknown>;
    await leases.hold(`${db}/${id.toHexString()}`, async () => {
      migrating = migrate(store, { leases: watched, migrations: [MIGRATIONS[0]!, valueTypeMigration(10)] });
      // (A migration that finished without asking has rewritten it regardless: the test fails here.)
      await Promise.race([leaseAsked, migrating.then(() => Promise.reject(new Error('the migration finished without asking for the entity\'s lease')))]);
      // The migration waits for the lease: the document is as the writer left it, and the writer's change lands.
      expect(((await entities.findOne({ _id: id }))!.name as Document[])[0]).toHaveProperty('type', 'name');
      await entities.updateOne({ _id: id, __v: 1 }, { $set: { __v: 2, name: [{ _id: new ObjectId(), type: 'name', string: 'written meanwhile', created: { at, by } }] } });
    });
    await migrating;
    expect((await entities.findOne({ _id: id }))!.name).toEqual([expect.objectContaining({ string: 'written meanwhile' })]);
    expect(((await entities.findOne({ _id: id }))!.name as Document[])[0]).not.toHaveProperty('type');
  });

  it('a run asked to stop (SIGTERM) stops at the next document, gives the lock back, and the next run finishes', async () => {
    const store = freshStore();
    const db = `t_mig_db_${suffix}_s`;
    await register(store, db);
    const entities = store.database(db).collection('entity');
    const at = new Date();
    const documents = [1, 2, 3].map((i) => ({ _id: new ObjectId(), __v: 1, __read: ['public'], name: [{ _id: new ObjectId(), type: 'name', string: `n${i}`, created: { at, by: new ObjectId() } }] }));
    await entities.insertMany(documents);
    const first = `${db}/${documents[0]!._id.toHexString()}`;
    const { watched, leaseAsked } = watchLease(first);
    const stop = new AbortController();
    let running!: Promise<unknown>;
    // The migration is held on the first document; the stop comes while it waits.
    await leases.hold(first, async () => {
      running = migrate(store, { leases: watched, migrations: [MIGRATIONS[0]!, valueTypeMigration(10)], signal: stop.signal });
      await leaseAsked;
      stop.abort(new Error('stopped by SIGTERM'));
    });
    await expect(running).rejects.toThrow('stopped by SIGTERM');
    const typed = async () => (await entities.find({}, { sort: { _id: 1 } }).toArray()).map((document) => 'type' in (document.name as Document[])[0]!);
    // The document it was on is finished, the next ones are not touched; migration 2 is not recorded.
    expect(await typed()).toEqual([false, true, true]);
    expect((await new SchemaRecords(store.control).read()).version).toBe(1);
    expect(await store.control.collection('schema').findOne({ _id: 'lock' as never })).toBeNull();
    // Not refused for a lock: the next run takes it at once and finishes.
    expect(await migrate(store, { leases, migrations: [MIGRATIONS[0]!, valueTypeMigration(10)] })).toEqual({ from: 1, to: 2, applied: [2] });
    expect(await typed()).toEqual([false, false, false]);
  });
});
