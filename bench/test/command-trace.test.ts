import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { appFrames, fieldNames, traceCommands, traced } from '../load/command-trace';
import { parseTrace, siteOf, summariseTrace } from '../load/trace-summary';

const STACK = `Error
    at MongoClient.<anonymous> (/repo/bench/load/command-trace.ts:70:60)
    at MongoClient.emit (node:events:518:28)
    at Connection.command (/repo/node_modules/mongodb/lib/cmap/connection.js:294:22)
    at async EntityCollection.many (/repo/libs/store/src/entities.ts:97:25)
    at async targetsOf (/repo/libs/entities/src/checks.ts:36:18)
    at async /repo/libs/entities/src/write/values.ts:84:19
    at async Promise.all (index 0)`;

describe('a command trace line', () => {
  it("keeps this repository's frames, innermost first, without the driver, Node or the trace itself", () => {
    expect(appFrames(STACK, '/repo')).toEqual([
      'EntityCollection.many (libs/store/src/entities.ts:97)',
      'targetsOf (libs/entities/src/checks.ts:36)',
      '<anonymous> (libs/entities/src/write/values.ts:84)',
    ]);
    expect(appFrames(STACK, '/elsewhere')).toEqual([]);
  });

  it.each([
    ['a find', { find: 'entity', filter: { _id: { $in: [1] } } }, ['_id']],
    ['a count', { count: 'entity', query: { b: 1, a: 2 } }, ['a', 'b']],
    ['an update', { update: 'entity', updates: [{ q: { _id: 1, _v: 3 }, u: {} }] }, ['_id', '_v']],
    ['a delete', { delete: 'pending', deletes: [{ q: { db: 'x' }, limit: 0 }] }, ['db']],
    ['an aggregate', { aggregate: 'entity', pipeline: [{ $match: { $and: [{ x: 1 }, { $or: [{ y: 1 }, { x: 2 }] }] } }, { $group: {} }] }, ['x', 'y']],
  ])('names the fields of %s, never the values', (_, command, fields) => {
    const line = traced({ commandName: Object.keys(command)[0]!, command }, STACK, 5);
    expect(line.fields).toEqual(fields);
    expect(line.collection).toBe(Object.values(command)[0]);
    expect(JSON.stringify(line)).not.toMatch(/"q"|\$in|\$match/);
  });

  it('has no fields for an insert', () => {
    expect(traced({ commandName: 'insert', command: { insert: 'history', documents: [{ secret: 'x' }] } }, STACK).fields).toBeUndefined();
    expect(fieldNames(undefined)).toEqual([]);
  });
});

describe('the trace summed per scenario', () => {
  const frames = ['EntityCollection.many (libs/store/src/entities.ts:97)', 'targetsOf (libs/entities/src/checks.ts:36)'];
  const line = (at: number, command = 'find') => ({ at, command, collection: 'entity', fields: ['_id'], frames });

  it('names the store call and the code above it that made it', () => {
    expect(siteOf(frames)).toBe('EntityCollection.many (libs/store/src/entities.ts:97) ← targetsOf (libs/entities/src/checks.ts:36)');
    expect(siteOf(['handler (services/api/src/routes/x.ts:3)'])).toBe('handler (services/api/src/routes/x.ts:3)');
    expect(siteOf([])).toBe('(no frame of this repository)');
  });

  it('counts only the commands within the span, per request, most frequent first', () => {
    const traces = new Map([
      ['api', [line(5), line(10), line(11), line(12, 'insert'), line(30)]],
      ['worker', [line(10)]],
    ]);
    const rows = summariseTrace(traces, { from: 10, to: 20 }, 2);
    expect(rows.map((r) => [r.service, r.command, r.perRequest])).toEqual([
      ['api', 'find', 1],
      ['api', 'insert', 0.5],
      ['worker', 'find', 0.5],
    ]);
    expect(summariseTrace(traces, { from: 100, to: 200 }, 2)).toEqual([]);
  });
});

describe('the trace preloaded into a process that talks to the database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-trace-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes each command with the code that sent it, and no value of its filter', async () => {
    const file = join(dir, 'trace.ndjson');
    traceCommands(file, join(__dirname, '..', '..'));
    const client = await MongoClient.connect(process.env.MONGODB_URL!, { monitorCommands: true });
    try {
      async function lookUpTheSecret() {
        // Awaited: V8's async stack trace shows a frame only while it awaits.
        const found = await client.db('entia_trace_test').collection('things').findOne({ name: 'a secret value' });
        return found;
      }
      await lookUpTheSecret();
    } finally {
      await client.close();
    }
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('a secret value');
    const find = parseTrace(text).find((c) => c.command === 'find');
    expect(find).toMatchObject({ collection: 'things', fields: ['name'] });
    expect(find!.frames[0]).toMatch(/^lookUpTheSecret \(bench\/test\/command-trace\.test\.ts:\d+\)$/);
  });
});
