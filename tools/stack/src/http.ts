import * as http from 'node:http';

export interface HttpReply {
  status: number;
  body: string;
}

export function httpRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer; timeoutMs?: number } = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    // agent: false — a pooled keep-alive socket to a server we just killed would fail the next probe.
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, timeout: opts.timeoutMs ?? 3000, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${opts.timeoutMs ?? 3000}ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Status of a GET, or 0 when nothing answered; for readiness polling. */
export async function httpStatus(url: string, timeoutMs = 2000): Promise<number> {
  try {
    return (await httpRequest(url, { timeoutMs })).status;
  } catch {
    return 0;
  }
}
