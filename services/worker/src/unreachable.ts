import type { Redis } from 'ioredis';

/**
 * Resolves once a PING on `redis` fails (a `command` connection fails a PING within about two
 * seconds while Redis is away), checking every `intervalMs` until `stop` is called. Used while
 * closing: BullMQ's close waits for Redis as long as it takes, which must not hold up an exit.
 */
export function whenUnreachable(redis: Redis, intervalMs = 500): { unreachable: Promise<void>; stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const unreachable = new Promise<void>((resolve) => {
    const check = () => {
      if (stopped) return;
      redis.ping().then(
        () => {
          if (!stopped) timer = setTimeout(check, intervalMs);
        },
        () => resolve(),
      );
    };
    check();
  });
  return {
    unreachable,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
