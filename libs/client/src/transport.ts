import { EntiaError, type Problem } from './errors';
import { backoffDelay, isRetryableStatus, mayRepeat, type RetryPolicy } from './retry';
import { abortable } from './signals';

/** One HTTP call as the transport sends it. */
export interface Call {
  method: string;
  path: string;
  body?: unknown;
  bearer?: string | undefined;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * HTTP with the interface's retry rule and nothing else: 5xx, 429 and network failures are retried
 * with backoff — a POST only when it carries an `Idempotency-Key`, sent unchanged on every attempt,
 * so a repeat of a POST that was stored returns its first answer instead of storing it twice. Any
 * other non-2xx is an `EntiaError` at once; an aborted or timed-out call is never retried. Knows no
 * credentials beyond the bearer it is handed, so the key exchange and ordinary calls share one retry
 * behaviour.
 */
export class Transport {
  constructor(
    readonly baseUrl: string,
    private readonly retry: RetryPolicy,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {}

  async send<T>({ method, path, body, bearer, idempotencyKey, signal }: Call): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    const repeatable = mayRepeat(method, idempotencyKey);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.retry.attempts || !repeatable;
      let response: Response;
      try {
        response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (last || signal?.aborted) throw signal?.aborted ? signal.reason : error;
        await abortable(this.sleep(backoffDelay(attempt, this.retry), signal), signal);
        continue;
      }
      if (response.ok) return (await readJson(response)) as T;
      const error = await toError(response);
      if (last || !isRetryableStatus(response.status, error.problem?.type)) throw error;
      await abortable(this.sleep(retryAfterMs(response) ?? backoffDelay(attempt, this.retry), signal), signal);
    }
  }
}

/** An empty 2xx body (a 204, say) is `undefined` rather than a JSON syntax error. */
async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  return text === '' ? undefined : JSON.parse(text);
}

function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/** A non-2xx answer as an `EntiaError`, with the server's problem details when it sent them. */
export async function toError(response: Response): Promise<EntiaError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const problem = (await response.json().catch(() => undefined)) as Problem | undefined;
  return new EntiaError(response.status, problem, requestId);
}
