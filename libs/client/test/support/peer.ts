import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the peer saw it: raw URL (so encoding is checked too), bearer, parsed JSON body. */
export interface Seen {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  body: unknown;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A real HTTP server standing in for the API: each test sets `answer` and reads `seen`. Nothing in
 * the client is mocked, so headers, encoding and bodies cross a real socket.
 */
export class Peer {
  seen: Seen[] = [];
  answer: (request: Seen) => Answer | Promise<Answer> = () => ({ status: 200, body: {} });
  private server: Server | undefined;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.serve(req).then(({ status, body, headers }) => {
        const type = status < 400 ? 'application/json' : 'application/problem+json';
        res.writeHead(status, { 'Content-Type': type, ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }

  reset(): void {
    this.seen = [];
    this.answer = () => ({ status: 200, body: {} });
  }

  /** Requests to a path (without query), in order. */
  to(path: string): Seen[] {
    return this.seen.filter((s) => s.path === path);
  }

  private async serve(req: IncomingMessage): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://peer');
    const seen: Seen = {
      method: req.method!,
      url: req.url!,
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      body: text === '' ? undefined : JSON.parse(text),
    };
    this.seen.push(seen);
    return this.answer(seen);
  }
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT-shaped token (`header.payload.sig`); the client reads `exp` and never checks the signature. */
export function jwt(claims: { exp?: number; [claim: string]: unknown }): string {
  return `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}.c2lnbmF0dXJl`;
}

export const problem = (status: number, detail: string) => ({ type: `urn:entia:${status}`, title: `HTTP ${status}`, status, detail });
