import { performance } from 'node:perf_hooks';

/** SPEC §11: a dependency that is down or slow is 503 with Retry-After within 2.5 s, never a 500 or a hang. */
export const SPEC_LIMIT_MS = 2500;

/** A request still unanswered after this long is taken for hung: aborted, so the test fails instead of waiting. */
const HANG_MS = 15_000;

export interface Answer {
  status: number;
  ms: number;
  headers: Headers;
  body: { status?: unknown; type?: unknown; detail?: unknown; checks?: Record<string, string>; degraded?: string[]; [key: string]: unknown };
}

/** One request, timed from sending to the last byte of the answer. Redirects are not followed. */
export async function timed(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(url, { redirect: 'manual', ...init, signal: AbortSignal.timeout(HANG_MS) });
  const text = await res.text();
  const ms = Math.round(performance.now() - started);
  let body: Answer['body'] = {};
  try {
    body = text ? (JSON.parse(text) as Answer['body']) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, ms, headers: res.headers, body };
}

/** What a client must see when a dependency is away: 503 problem details with Retry-After, in time. */
export function expectFastUnavailable(answer: Answer): void {
  expect({ status: answer.status, type: answer.body.type }).toEqual({ status: 503, type: 'urn:entia:problem:unavailable' });
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(answer.ms).toBeLessThan(SPEC_LIMIT_MS);
}

/** Repeats `attempt` until `accept` holds (bounded); returns the accepted answer. */
export async function until(attempt: () => Promise<Answer>, accept: (answer: Answer) => boolean, timeoutMs: number): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await attempt();
    if (accept(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last: ${answer.status} ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Measured times, printed at the end of a file when ENTIA_FAULT_TIMINGS is set (the numbers for a
 * report; the assertions do not depend on printing them).
 */
export class Timings {
  private readonly lines: string[] = [];

  record(scenario: string, answer: Answer): Answer {
    this.lines.push(`${scenario}: ${answer.status} in ${answer.ms} ms`);
    return answer;
  }

  /** A time that is not one request's (a recovery, say). */
  note(scenario: string, ms: number): void {
    this.lines.push(`${scenario} in ${ms} ms`);
  }

  print(title: string): void {
    if (process.env.ENTIA_FAULT_TIMINGS) process.stderr.write(`\n${title}\n${this.lines.map((line) => `  ${line}`).join('\n')}\n`);
  }
}
