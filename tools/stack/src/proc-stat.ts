import * as fs from 'node:fs';

/**
 * utime + stime (fields 14 and 15, in clock ticks) of a /proc/<pid>/stat line. Counted from the
 * last `)`: the command name before it is in parentheses and may itself hold spaces and `)`.
 */
export function cpuTicksOf(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return Number.isInteger(utime) && Number.isInteger(stime) ? utime + stime : undefined;
}

/** CPU time a process has used so far; undefined where /proc cannot tell (not Linux, process gone). */
export function cpuTicks(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    return cpuTicksOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export function fileSize(file: string): number | undefined {
  try {
    return fs.statSync(file).size;
  } catch {
    return undefined;
  }
}
