export interface FailureLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * Told of every readiness probe's failures (the kubelet's every few seconds, `npm start`'s four a
 * second): a line when the set of dependencies that are down changes — a warning naming them and
 * why, or that they answer again — never one per probe.
 */
export function failureChanges(log: FailureLog): (failures: Record<string, string>) => void {
  let down: string[] = [];
  return (failures) => {
    const now = Object.keys(failures).sort();
    if (now.join() === down.join()) return;
    if (now.length > 0) log.warn({ failures }, 'dependencies unavailable');
    else log.info({ dependencies: down }, 'dependencies answering again');
    down = now;
  };
}
