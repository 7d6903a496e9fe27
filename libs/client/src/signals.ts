/** What every call accepts: a caller's `AbortSignal` and a time limit. */
export interface CallOptions {
  /** Aborts the call (and its retries); it rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Gives up after this many milliseconds, retries and waits between them included; the call
   * rejects with a `TimeoutError` `DOMException`. Defaults to the client's `timeoutMs`; `0` waits
   * forever.
   */
  timeoutMs?: number;
}

/** The signal one call runs under: the caller's, its time limit, or both. */
export function callSignal(options: CallOptions, defaultTimeoutMs: number): AbortSignal | undefined {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  if (!timeout) return options.signal;
  return options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
}

/** `promise`, or the signal's reason as soon as it aborts (the work behind `promise` goes on). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  // Whoever gave up no longer listens: the work's own failure must not become an unhandled
  // rejection (which ends a Node process).
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort!));
}

/**
 * A wait that ends early when `signal` aborts, its timer cleared: a call given up during a long
 * `Retry-After` must not keep a Node process alive until the wait would have ended.
 */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
