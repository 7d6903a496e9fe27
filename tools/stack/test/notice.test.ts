import { NOTICE_AFTER_MS, WaitNotice, noticeDue, reasonKey } from '../src/notice';

// When a wait of the stack says what it waits for (issue 31): one line once it gets long, one more
// only when the reason changes; never a line per poll.

describe('noticeDue', () => {
  const said = new Set([reasonKey('starting: mongodb unreachable (connect ECONNREFUSED 127.0.0.1:41234)')]);
  test.each<[string, ReadonlySet<string>, string, number, boolean]>([
    ['a short wait', new Set(), 'it does not take connections yet', NOTICE_AFTER_MS - 1, false],
    ['a long wait, nothing said yet', new Set(), 'it does not take connections yet', NOTICE_AFTER_MS, true],
    ['the same reason again', said, 'starting: mongodb unreachable (connect ECONNREFUSED 127.0.0.1:41234)', 60_000, false],
    ['the same reason with other figures', said, 'starting: mongodb unreachable (connect ECONNREFUSED 127.0.0.1:41999)', 60_000, false],
    ['another reason', said, 'starting: redis unreachable (connect ECONNREFUSED 127.0.0.1:6379)', 60_000, true],
  ])('%s → %s', (_what, alreadySaid, reason, waited, due) => {
    expect(noticeDue(alreadySaid, reason, waited)).toBe(due);
  });
});

test('a wait polled every 250 ms for a minute says each reason once, and nothing in its first seconds', () => {
  const lines: string[] = [];
  const notice = new WaitNotice('the API to be ready', (line) => lines.push(line));
  const reasonAt = (ms: number): string =>
    ms < 2000
      ? 'it does not answer GET /readyz yet (ECONNREFUSED)'
      : ms < 20_000
        ? `starting: mongodb unreachable (Server selection timed out after ${1000 + (ms % 7)} ms)`
        : ms < 40_000
          ? 'the stored schema is older than this version needs: run entia-admin migrate'
          : 'starting: mongodb unreachable (Server selection timed out after 1000 ms)';
  for (let ms = 0; ms <= 60_000; ms += 250) notice.update(reasonAt(ms), ms);
  expect(lines).toEqual([
    'waiting for the API to be ready: starting: mongodb unreachable (Server selection timed out after 1004 ms)',
    'waiting for the API to be ready: the stored schema is older than this version needs: run entia-admin migrate',
  ]);
});
