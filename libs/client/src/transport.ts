import { EntiaError, type Problem } from './errors';
import { backoffDelay, isRetryableStatus, mayRepeat, type RetryPolicy } from './retry';

/**
 * HTTP with the interface's retry rule and nothing else: 5xx, 429 and network failures are retried
 * with backoff — a POST only when it carries an `Idempotency-Key`, sent unchanged on every attempt,
 * so a repeat of a POST that was stored returns its first answer instead of storing it twice. Any
 * other non-2xx is an `EntiaError` at once. Knows no credentials beyond the bearer it is handed, so
 * the key exchange and ordinary calls share one retry behaviour.
 */
export class Transport {
  constructor(
    readonly baseUrl: string,
    private readonly retry: RetryPolicy,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  async send<T>(method: string, path: string, body: unknown, bearer: string | undefined, idempotencyKey?: string): Promise<T> {
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
        });
      } catch (error) {
        if (last) throw error;
        await this.sleep(backoffDelay(attempt, this.retry));
        continue;
      }
      if (response.ok) return (await readJson(response)) as T;
      const error = await toError(response);
      if (last || !isRetryableStatus(response.status, error.problem?.type)) throw error;
      await this.sleep(retryAfterMs(response) ?? backoffDelay(attempt, this.retry));
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

async function toError(response: Response): Promise<EntiaError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const problem = (await response.json().catch(() => undefined)) as Problem | undefined;
  return new EntiaError(response.status, problem, requestId);
}
