/**
 * Runs `round` now and then every `intervalMs` after the previous round ended (rounds never
 * overlap) until stopped; a round that fails is reported and the next one runs as planned.
 */
export function runPeriodically(round: () => Promise<unknown>, intervalMs: number, onError: (err: unknown) => void): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    running = round()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(next, intervalMs);
      });
  };
  next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
