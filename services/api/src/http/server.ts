import { STATUS_CODES, createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { HttpProblem, problems } from './problem';

/** Headers must have arrived this long after a request began (or REQUEST_TIMEOUT_MS, if shorter). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past their time: the timeouts are enforced within this much. */
export const TIMEOUT_CHECK_MS = 1_000;

export interface ServerOptions {
  /** REQUEST_TIMEOUT_MS: the whole request, headers and body, must have arrived within it. */
  requestTimeoutMs: number;
  logger: Logger;
}

/**
 * The HTTP server of the API: Node's, with bounds on slow clients and its own refusals in our
 * words. A client that sends its headers or body too slowly is answered 408 and cut off (Node's
 * defaults hold a request for 300 s and check only every 30 s); requests Node refuses before the
 * app sees them (a malformed request, headers over 16 KiB, an `Expect` it cannot meet) are
 * answered with problem details like every other error, not with Node's bare status lines.
 */
export function createHttpServer(app: RequestListener, { requestTimeoutMs, logger }: ServerOptions): Server {
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    app,
  );
  // Which response a socket is sending, so a late refusal never writes into the middle of it.
  const responding = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    responding.set(req.socket, res);
    res.once('finish', () => {
      if (responding.get(req.socket) === res) responding.delete(req.socket);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const problem = clientErrorProblem(error.code);
    logger.debug({ code: error.code }, 'refused by the HTTP layer');
    if (!problem || !socket.writable || responding.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    answered.set(socket, problem);
    // The connection cannot be trusted to carry another request: answer, then close it.
    socket.end(rawResponse(problem), () => socket.destroy());
    // A client that does not read the answer must not keep the socket either.
    setTimeout(() => socket.destroy(), TIMEOUT_CHECK_MS).unref();
  });
  // An `Expect` other than 100-continue: Node would answer a bare 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const problem = new HttpProblem(417, 'expectation-failed', 'Expectation Failed', `Expect: ${String(req.headers.expect).slice(0, 100)} is not supported; only 100-continue is.`);
    const body = JSON.stringify(problem.toBody());
    res.writeHead(problem.status, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), ...problem.headers }).end(body);
  });
  return server;
}

// What the server itself answered on a connection, for a request the app may still be handling.
const answered = new WeakMap<Duplex, HttpProblem>();

/**
 * The answer the server itself gave on this request's connection, if it did: 408 when the body was
 * not in within REQUEST_TIMEOUT_MS, 400 when the client hung up mid-body (Node's parser reads the
 * early end as malformed). The connection is then closed under the app, which may have been reading
 * the body (body-parser's `request.aborted`) or still be in a guard before it: either way this is
 * the request's status, what the request log says.
 */
export function serverAnswer(req: IncomingMessage): HttpProblem | undefined {
  return answered.get(req.socket);
}

/**
 * What Node's parser (`HPE_*` codes) or its timeouts refused, as the problem we answer; undefined
 * for anything else (a reset or broken connection): there is nobody to answer, just close.
 */
export function clientErrorProblem(code: string | undefined): HttpProblem | undefined {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpProblem(408, 'request-timeout', 'Request Timeout', 'The request did not arrive in time; the connection is closed.');
    case 'HPE_HEADER_OVERFLOW':
      return new HttpProblem(
        431,
        'request-header-fields-too-large',
        'Request Header Fields Too Large',
        'The request line and headers exceed 16 KiB. Send a long query as a JSON body: POST /api/{db}/entity/query.',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpProblem(413, 'payload-too-large', 'Payload Too Large', 'The chunk extensions of the body are too large.');
    default:
      return code?.startsWith('HPE_') ? problems.invalidRequest('The request is not valid HTTP/1.1.') : undefined;
  }
}

/** A whole HTTP/1.1 response carrying `problem`, written straight to a socket the app never saw. */
function rawResponse(problem: HttpProblem): string {
  const body = JSON.stringify(problem.toBody());
  const headers = {
    'Content-Type': 'application/problem+json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    'Cache-Control': 'no-store',
    ...problem.headers,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? problem.title}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}
