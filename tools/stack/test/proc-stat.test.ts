import { cpuTicks, cpuTicksOf } from '../src/proc-stat';

// A process's CPU time, one of the signs that a server being waited for is at work (issue 31).

const stat = (comm: string, utime: number, stime: number): string =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1203 0 0 0 ${utime} ${stime} 0 0 20 0 9 0 51234 1266003968 10101 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n`;

test.each<[string, string, number | undefined]>([
  ['a plain name', stat('ferretdb', 120, 35), 155],
  ['a name with spaces', stat('MinIO server', 7, 1), 8],
  ['a name with parentheses and spaces', stat('a) S 1 2 (b', 40, 2), 42],
  ['a truncated line', '4242 (redis-server) S 1 4242', undefined],
  ['not a stat line', '', undefined],
])('%s', (_what, line, ticks) => {
  expect(cpuTicksOf(line)).toBe(ticks);
});

// Beyond the largest pid_max Linux allows (2^22): no such process.
test('this process has used CPU time; a process that does not exist has none to tell', () => {
  expect(cpuTicks(process.pid)).toBeGreaterThan(0);
  expect(cpuTicks(2 ** 22 + 1)).toBeUndefined();
});
