import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { RedisBreaker } from '@entia/jobs';
import type { Logger } from 'pino';
import { stringify } from 'safe-stable-stringify';
import { grantOf } from './caller';
import { AnswerSeal, type StoredAnswer } from './idempotency-answer';
import { IdempotencyRecords, type Claim, type IdempotencyRecord } from './idempotency-records';
import { HttpProblem, problems } from './problem';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The header as published in the OpenAPI document, and as checked here: 1–255 printable ASCII characters. */
export const IdempotencyKeySchema = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' } as const;
const KEY_SHAPE = new RegExp(IdempotencyKeySchema.pattern);

/** A claim lapses this long after its process stops renewing it (crashed, or stuck past MAX_RUNNING_MS). */
const CLAIM_TTL_MS = 10_000;
/** A request still running after this is stuck: its claim is left to lapse rather than renewed forever. */
const MAX_RUNNING_MS = 5 * 60_000;
/** Seconds a caller is told to wait when the first request with its key is still running. */
const RUNNING_RETRY_AFTER = '1';
/** Headers of the first answer that a replay repeats; the rest (request id, rate limit) belong to each request. */
const KEPT_HEADERS = ['content-type', 'location', 'cache-control'];
/**
 * 4xx answers that say "not now" rather than "not this": a write that lost its races, a rate limit,
 * a token to renew. They are not kept, so a retry with the same key executes again. Every other
 * answer below 500 is kept (all POSTs are all-or-nothing: a 4xx stored nothing, and repeats it).
 */
const TRANSIENT = new Set([401, 408, 409, 423, 425, 429]);

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * Whose keys these are: the person the verified token names in the path's database, or (routes
 * outside a database) the API key the token came from. Anonymous callers have nothing that is
 * theirs alone, so their keys are not honoured at all (see docs/decisions.md).
 */
function scopeOf(req: Request, res: Response): string | undefined {
  const grant = grantOf(res);
  if (!grant) return undefined;
  const db = req.params.db;
  return typeof db === 'string' && Object.hasOwn(grant.accounts, db) ? `person:${db}:${grant.accounts[db]}` : `key:${grant.kid}`;
}

/** Same method, same URL, JSON-equal body (object keys in any order). */
function fingerprintOf(req: Request): string {
  return sha256(`${req.method}\n${req.originalUrl}\n${stringify(req.body) ?? ''}`);
}

const invalidKey = (message: string) =>
  problems.invalidRequest(`The ${IDEMPOTENCY_HEADER} header is invalid: ${message}.`, [{ parameter: IDEMPOTENCY_HEADER, message }]);

const reused = (why = 'was used for another request (another method, path or body)') =>
  new HttpProblem(422, 'idempotency-key-reused', 'Unprocessable Content', `This ${IDEMPOTENCY_HEADER} ${why}; use a new key.`);
const stillRunning = () =>
  new HttpProblem(409, 'idempotency-key-in-use', 'Conflict', `The first request with this ${IDEMPOTENCY_HEADER} is still running; retry after Retry-After.`, undefined, {
    'Retry-After': RUNNING_RETRY_AFTER,
  });
const recordsDown = () => problems.unavailable(`Idempotency records cannot be read or written now, so this request was not executed; retry shortly.`);

export interface IdempotencyOptions {
  /** The request-path Redis client behind its circuit breaker (deps.breaker). */
  redis: RedisBreaker;
  prefix: string;
  /** Server secrets (the JWT secrets): the first seals kept answers, every one opens them. */
  secrets: readonly string[];
  logger: Logger;
}

/**
 * `Idempotency-Key` on POST routes (SPEC §11). Mounted after authentication and body parsing. The
 * first request with a key claims it in Redis and runs; its answer replaces the claim for 24 h and
 * is replayed, with `Idempotent-Replayed: true`, to repeats of the same request by the same caller.
 * A repeat with another request is 422, one while the first still runs is 409. A 5xx (or transient
 * 4xx) answer releases the key, so a retry executes again. Without Redis a keyed request is 503:
 * executing it unprotected could be the duplicate the key exists to prevent.
 */
export function idempotency({ redis, prefix, secrets, logger }: IdempotencyOptions): RequestHandler {
  const records = new IdempotencyRecords(redis, CLAIM_TTL_MS);
  const seal = new AnswerSeal(secrets);
  return async (req, res, next) => {
    const log = req.log ?? logger;
    const key = req.headers[IDEMPOTENCY_HEADER.toLowerCase()];
    if (key === undefined) return next();
    if (typeof key !== 'string' || key.length > IdempotencyKeySchema.maxLength || !KEY_SHAPE.test(key)) {
      throw invalidKey(`it must be 1 to ${IdempotencyKeySchema.maxLength} printable ASCII characters (a UUID, say)`);
    }
    const scope = scopeOf(req, res);
    if (scope === undefined) return next();

    const recordKey = `${prefix}:idem:${sha256(`${scope}\n${key}`)}`;
    const sealKeys = seal.keysFor(scope, key);
    const fingerprint = fingerprintOf(req);
    // Two rounds: a record can lapse or be released between a refused claim and the read.
    for (let round = 0; round < 2; round++) {
      let claim: Claim | undefined;
      let record: IdempotencyRecord | undefined;
      try {
        claim = await records.claim(recordKey, fingerprint);
        record = claim ? undefined : await records.read(recordKey);
      } catch (err) {
        log.warn({ err }, 'idempotency records unavailable');
        throw recordsDown();
      }
      if (claim) {
        keepAnswer(res, claim, records, (answer) => seal.seal(sealKeys, answer), log);
        return next();
      }
      if (!record) continue;
      if (record.fingerprint !== fingerprint) throw reused();
      if (record.state === 'running') throw stillRunning();
      let answer: StoredAnswer;
      try {
        answer = seal.open(sealKeys, record.sealed);
      } catch (err) {
        // Only a retired server secret gets here: the first answer exists but cannot be read.
        log.warn({ err }, 'idempotent answer could not be opened');
        throw reused('was used before, and its answer can no longer be replayed (the server secret changed)');
      }
      return replay(res, answer);
    }
    throw stillRunning();
  };
}

function replay(res: Response, answer: StoredAnswer): void {
  res.status(answer.status).set(answer.headers).set('Idempotent-Replayed', 'true').send(answer.body);
}

/**
 * Holds the response until its answer is stored (or the claim released), then sends it: once the
 * caller can have seen an answer, a repeat gets that same answer. The claim is renewed while the
 * request runs, so a slow request keeps its key and a crashed process frees it within CLAIM_TTL_MS.
 */
function keepAnswer(res: Response, claim: Claim, records: IdempotencyRecords, seal: (answer: StoredAnswer) => Buffer, logger: Logger): void {
  const started = Date.now();
  const heartbeat = setInterval(() => {
    if (Date.now() - started > MAX_RUNNING_MS) return clearInterval(heartbeat);
    records.renew(claim).catch((err: unknown) => logger.warn({ err }, 'idempotency claim not renewed'));
  }, CLAIM_TTL_MS / 3);
  heartbeat.unref();

  captureBody(res, async (body) => {
    clearInterval(heartbeat);
    try {
      if (res.statusCode >= 500 || TRANSIENT.has(res.statusCode)) await records.release(claim);
      else await records.finish(claim, seal({ status: res.statusCode, headers: keptHeaders(res), body }));
    } catch (err) {
      // The answer still goes out; the claim lapses within CLAIM_TTL_MS and a retry runs again.
      logger.warn({ err }, 'idempotency answer not stored');
    }
  });
}

function keptHeaders(res: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) kept[name] = String(value);
  }
  return kept;
}

type Callback = (error?: Error | null) => void;

/**
 * Buffers what the handler writes and calls `settle` with the whole body before the response is
 * really ended. POST handlers answer with one `res.send`; `write` is buffered too so that a
 * handler that streams cannot slip past the record.
 */
function captureBody(res: Response, settle: (body: Buffer) => Promise<void>): void {
  const chunks: Buffer[] = [];
  const { write, end } = res;
  const toBuffer = (chunk: unknown, encoding: unknown) =>
    typeof chunk === 'string' ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding) : Buffer.from(chunk as Uint8Array);

  res.write = ((chunk: unknown, encoding?: unknown, callback?: Callback) => {
    chunks.push(toBuffer(chunk, encoding));
    const done = typeof encoding === 'function' ? (encoding as Callback) : callback;
    if (done) process.nextTick(done);
    return true;
  }) as Response['write'];

  res.end = ((chunk?: unknown, encoding?: unknown, callback?: () => void) => {
    if (typeof chunk === 'function') [callback, chunk] = [chunk as () => void, undefined];
    if (typeof encoding === 'function') [callback, encoding] = [encoding as () => void, undefined];
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
    res.write = write;
    res.end = end;
    const body = Buffer.concat(chunks);
    void settle(body).finally(() => (end as (chunk: Buffer, callback?: () => void) => Response).call(res, body, callback));
    return res;
  }) as Response['end'];
}
