const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Resolves on the first SIGINT/SIGTERM/SIGHUP. Our own handler also tells the library's
 * cleanup to leave the shutdown order to us. A second signal while we are still stopping
 * means "now": exit at once and let the exit hook SIGKILL whatever is left.
 */
export function onceSignal(onSecond: () => void = () => process.exit(130)): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: NodeJS.Signals): void => {
      if (received) return onSecond();
      received = true;
      resolve(signal);
    };
    for (const s of SIGNALS) process.on(s, handler);
  });
}

/** Signal handlers do not keep Node alive, and our servers are unref'd children. */
export function keepAlive(): () => void {
  const timer = setInterval(() => undefined, 1 << 30);
  return () => clearInterval(timer);
}
