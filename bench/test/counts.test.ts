import { commandstats, counterValues, cpuTicks, dbCost, difference, redisCost, sampleValue, workerIdle } from '../load/counts';

const SCRAPE = `# HELP mongodb_commands_total MongoDB commands sent, by command name.
# TYPE mongodb_commands_total counter
mongodb_commands_total{command="find"} 12
mongodb_commands_total{command="insert"} 3
mongodb_commands_total{command="hello"} 2
mongodb_commands_total{service="x",command="update"} 4
mongodb_commands_total{command="odd\\"name"} 1
mongodb_commands_total_created{command="find"} 1700000000
http_requests_total{method="GET",route="/",status="200"} 9
`;

describe('the /metrics text', () => {
  it('reads a counter by one label, other metrics and suffixed series left out', () => {
    expect(counterValues(SCRAPE, 'mongodb_commands_total', 'command')).toEqual({ find: 12, insert: 3, hello: 2, update: 4, 'odd"name': 1 });
    expect(counterValues(SCRAPE, 'absent_total', 'command')).toEqual({});
  });

  it('differs: grown keys only, a scrape’s own cost taken off, never below 0', () => {
    const before = { find: 10, insert: 3, aggregate: 1 };
    const after = { find: 15, insert: 3, aggregate: 2, update: 2 };
    expect(difference(before, after)).toEqual({ find: 5, aggregate: 1, update: 2 });
    expect(difference(before, after, { aggregate: 2, find: 1 })).toEqual({ find: 4, update: 2 });
  });
});

describe('database commands per request', () => {
  it('classifies by name, leaves probes out, sorts by count', () => {
    const cost = dbCost({ find: 200, aggregate: 100, insert: 100, findAndModify: 100, hello: 7, ping: 3, createIndexes: 1 }, 100);
    expect(cost).toEqual({ total: 5.01, reads: 3, writes: 2, byCommand: { find: 2, aggregate: 1, insert: 1, findAndModify: 1, createIndexes: 0.01 } });
    expect(dbCost({ find: 1000, killCursors: 1 }, 1000)).toEqual({ total: 1, reads: 1, writes: 0, byCommand: { find: 1 } });
    expect(Object.keys(cost.byCommand)[0]).toBe('find');
  });

  it('is all zeros when nothing was sent', () => {
    expect(dbCost({}, 50)).toEqual({ total: 0, reads: 0, writes: 0, byCommand: {} });
  });
});

describe('Redis INFO commandstats', () => {
  const INFO = [
    '# Commandstats',
    'cmdstat_get:calls=120,usec=300,usec_per_call=2.50,rejected_calls=0,failed_calls=0',
    'cmdstat_client|setname:calls=2,usec=3,usec_per_call=1.50,rejected_calls=0,failed_calls=0',
    'cmdstat_info:calls=5,usec=90,usec_per_call=18.00,rejected_calls=0,failed_calls=0',
    '',
  ].join('\r\n');

  it('reads calls per command', () => {
    expect(commandstats(INFO)).toEqual({ get: 120, 'client|setname': 2, info: 5 });
  });

  it('per request, the benchmark’s own INFO left out', () => {
    expect(redisCost({ get: 100, evalsha: 50, info: 1 }, 100)).toEqual({ total: 1.5, byCommand: { get: 1, evalsha: 0.5 } });
  });
});

describe('/proc/<pid>/stat', () => {
  it('sums utime and stime, whatever the command name holds', () => {
    const stat = '4242 (node (main) x) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 56 0 0 20 0 11 0 100 1000000 20000';
    expect(cpuTicks(stat)).toBe(1290);
  });
});

describe("the worker's scrape", () => {
  const scrape = (waiting: number, marks: number) =>
    [
      `entia_queue_jobs{state="waiting"} ${waiting}`,
      'entia_queue_jobs{state="active"} 0',
      'entia_queue_jobs{state="failed"} 3',
      '# HELP entia_derived_pending_marks Pending marks.',
      `entia_derived_pending_marks ${marks}`,
      'entia_derived_pending_marks_oldest_seconds 12',
    ].join('\n');

  it('is idle with no job waiting or running and no pending mark (failed jobs stay)', () => {
    expect(workerIdle(scrape(0, 0))).toBe(true);
    expect(workerIdle(scrape(1, 0))).toBe(false);
    expect(workerIdle(scrape(0, 2))).toBe(false);
    expect(workerIdle('')).toBe(false);
    expect(sampleValue(scrape(0, 7), 'entia_derived_pending_marks')).toBe(7);
  });
});
