import { failureChanges } from '@entia/health';

describe('failureChanges', () => {
  it('logs when the set of dependencies that are down changes, not on every probe', () => {
    const lines: [string, object, string][] = [];
    const told = failureChanges({ warn: (details, message) => lines.push(['warn', details, message]), info: (details, message) => lines.push(['info', details, message]) });
    const probes: Record<string, string>[] = [
      {},
      { mongodb: 'connect ECONNREFUSED 10.0.0.5:27017' },
      { mongodb: 'connect ECONNREFUSED 10.0.0.5:27017' },
      // Another reason for the same dependency is the same news.
      { mongodb: 'no answer within 2000 ms' },
      { mongodb: 'no answer within 2000 ms', redis: 'Command timed out' },
      { redis: 'Command timed out' },
      {},
      {},
    ];
    for (const failures of probes) told(failures);
    expect(lines).toEqual([
      ['warn', { failures: { mongodb: 'connect ECONNREFUSED 10.0.0.5:27017' } }, 'dependencies unavailable'],
      ['warn', { failures: { mongodb: 'no answer within 2000 ms', redis: 'Command timed out' } }, 'dependencies unavailable'],
      ['warn', { failures: { redis: 'Command timed out' } }, 'dependencies unavailable'],
      ['info', { dependencies: ['redis'] }, 'dependencies answering again'],
    ]);
  });
});
