import { EntiaError, type Problem } from './errors';
import { DEFAULT_RETRY, backoffDelay, isRetryableStatus, type RetryPolicy } from './retry';

export interface ClientOptions {
  baseUrl: string;
  retry?: RetryPolicy;
  /** Injected in tests to observe waits; defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

export interface JobStatus {
  id: string;
  name: string;
  state: string;
  progress: unknown;
  attempts: number;
  result?: unknown;
  failedReason?: string;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Typed access to an Entia API: retries what may succeed later, and nothing else. */
export class EntiaClient {
  private readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.sleep = options.sleep ?? realSleep;
  }

  /** One call, retried on 5xx, 429 and network failures with backoff; 4xx is thrown at once. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.retry.attempts;
      let response: Response;
      try {
        response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        if (last) throw error;
        await this.sleep(backoffDelay(attempt, this.retry));
        continue;
      }
      if (response.ok) return (await response.json()) as T;
      if (last || !isRetryableStatus(response.status)) throw await toError(response);
      await response.body?.cancel();
      await this.sleep(retryAfterMs(response) ?? backoffDelay(attempt, this.retry));
    }
  }

  schedulePing(message: string): Promise<{ id: string }> {
    return this.request('POST', '/api/jobs/ping', { message });
  }

  job(id: string): Promise<JobStatus> {
    return this.request('GET', `/api/jobs/${encodeURIComponent(id)}`);
  }

  /** Polls a job until it completes or fails, or `timeoutMs` passes. */
  async waitForJob(id: string, timeoutMs = 30_000, pollMs = 100): Promise<JobStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.job(id);
      if (status.state === 'completed' || status.state === 'failed') return status;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${status.state} after ${timeoutMs} ms`);
      await this.sleep(pollMs);
    }
  }
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
