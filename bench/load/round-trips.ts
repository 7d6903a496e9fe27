import { Redis } from 'ioredis';

/** The key kinds a GET reads: `rl` (rate limit), `gen` (generation tokens), `cache` (entries). */
const READ_KEYS = ['rl', 'gen', 'cache'];

/**
 * Redis round trips per request, counted rather than inferred: `INFO commandstats` counts the
 * commands a script runs as well as the call of the script, so a cached GET's one call (the rate
 * limit's count and the cache's reads in one script) shows there as five commands. Here MONITOR
 * watches `requests` GETs sent one after the other and counts the commands sent on a read's keys
 * (rate-limit counters, generation tokens, cache entries: the idle worker touches none of them),
 * leaving out what scripts ran (`lua`): one command sent is one round trip. MONITOR slows Redis
 * down, so this runs apart from the timed load.
 */
export async function redisRoundTrips(redisUrl: string, prefix: string, requests: number, send: () => Promise<void>): Promise<number> {
  const connection = new Redis(redisUrl);
  const monitor = await connection.monitor();
  const marker = `${prefix}:bench-marker:${Math.random()}`;
  let sent = 0;
  let ended = false;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args.includes(marker)) ended = true;
    else if (!ended && source !== 'lua' && args.some((arg) => READ_KEYS.some((kind) => arg.startsWith(`${prefix}:${kind}:`)))) sent++;
  });
  try {
    for (let i = 0; i < requests; i++) await send();
    // MONITOR's stream is ordered: once a marker read after the requests shows, they all have.
    const probe = connection.duplicate();
    await probe.get(marker).finally(() => probe.disconnect());
    for (let waited = 0; !ended && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    return Math.round((sent / requests) * 100) / 100;
  } finally {
    monitor.disconnect();
    connection.disconnect();
  }
}
