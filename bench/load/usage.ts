import pidusage from 'pidusage';

export interface ProcessUsage {
  /** Largest resident set seen, MiB. */
  maxRssMiB: number;
  /** Mean CPU over the samples, % of one core. */
  meanCpu: number;
  maxCpu: number;
}

/** Samples a process's RSS and CPU every `everyMs` until stopped. */
export function sampleUsage(pid: number, everyMs = 500): { stop(): ProcessUsage } {
  const rss: number[] = [];
  const cpu: number[] = [];
  const timer = setInterval(() => {
    pidusage(pid).then(
      (stat) => {
        rss.push(stat.memory / 1024 ** 2);
        cpu.push(stat.cpu);
      },
      () => undefined,
    );
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const mean = cpu.length ? cpu.reduce((a, b) => a + b, 0) / cpu.length : NaN;
      return { maxRssMiB: Math.round(Math.max(...rss, 0)), meanCpu: Math.round(mean), maxCpu: Math.round(Math.max(...cpu, 0)) };
    },
  };
}
