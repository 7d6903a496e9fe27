import { Credentials } from './credentials';
import { EntiaDatabase } from './database';
import type { AnySchema, SchemaShape } from './typed/shape';
import { EntiaError } from './errors';
import { DEFAULT_RETRY, type RetryPolicy } from './retry';
import { abortable, callSignal, wait, type CallOptions } from './signals';
import { Transport } from './transport';
import type { AuthResult } from './types';

export interface ClientOptions {
  baseUrl: string;
  /** A personal API key. Without one (and without `token`) the client is anonymous: public entities only. */
  apiKey?: string;
  /**
   * The database this client works in: limits the exchanged token to it (`GET /api/auth?db=`) and is
   * what `client.db()` opens when given no name.
   */
  db?: string;
  /** A JWT obtained earlier, used until it nears expiry; renewed from `apiKey` when there is one. */
  token?: string;
  /** Renew the token this long before its `exp`. Default 5 minutes. */
  tokenRefreshMarginMs?: number;
  retry?: RetryPolicy;
  /**
   * Default time limit of every call, retries included, in milliseconds (`0`: none). Default 30 s.
   * A call's own `timeoutMs` wins. Streams (`subscribe`) and downloads' bodies are not limited.
   */
  timeoutMs?: number;
  /**
   * How long a database's schema (what `db.type(name)` converts with) is used before it is fetched
   * again; a name not found in it is fetched again at once. Default 60 s.
   */
  schemaTtlMs?: number;
  /** Injected in tests to observe waits; defaults to a real timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected in tests to move time; defaults to `Date.now`. */
  now?: () => number;
}

/** Per call options of a write: a signal, a time limit, and the `Idempotency-Key`. */
export interface RequestOptions extends CallOptions {
  /**
   * The `Idempotency-Key` of a POST (other methods send none). By default a fresh random key per
   * call, the same on each of its retries and on its repeat after a token renewal. Pass your own to
   * make a call safe to repeat beyond this call (after a restart of your process, say: the server
   * keeps answers 24 h per person). `false` sends none: the POST is then never retried, since a
   * lost answer may hide a stored write.
   */
  idempotencyKey?: string | false;
}

const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Typed access to an Entia API: authenticates with a cached JWT, retries what may succeed later (a
 * POST only under its `Idempotency-Key`, so a lost answer never stores a write twice), and nothing
 * else. Entity operations live on the database-scoped object from `db()`.
 */
export class EntiaClient {
  private readonly transport: Transport;
  private readonly credentials: Credentials | undefined;
  private readonly defaultDb: string | undefined;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly timeoutMs: number;
  private readonly schemaTtlMs: number | undefined;
  private readonly databases = new Map<string, EntiaDatabase>();

  constructor(options: ClientOptions) {
    this.sleep = options.sleep ?? wait;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.schemaTtlMs = options.schemaTtlMs;
    this.transport = new Transport(options.baseUrl.replace(/\/+$/, ''), options.retry ?? DEFAULT_RETRY, this.sleep);
    this.defaultDb = options.db;
    const { apiKey } = options;
    const authPath = options.db === undefined ? '/api/auth' : `/api/auth?db=${encodeURIComponent(options.db)}`;
    if (apiKey !== undefined || options.token !== undefined) {
      this.credentials = new Credentials({
        // Straight to the transport, never through `request`: a 401 here is a bad key and is thrown,
        // it cannot start another exchange.
        // No caller's signal: the exchange is shared by every call waiting for it (each waits under its own).
        exchange: apiKey === undefined ? undefined : () => this.transport.send<AuthResult>({ method: 'GET', path: authPath, bearer: apiKey, signal: callSignal({}, this.timeoutMs) }),
        token: options.token,
        marginMs: options.tokenRefreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS,
        now: options.now ?? Date.now,
      });
    }
  }

  /**
   * Exchanges the API key now (joining an exchange already under way) and returns the databases it
   * opens; the new token is cached for later calls. Needs `apiKey`.
   */
  auth(options: CallOptions = {}): Promise<AuthResult> {
    if (!this.credentials) return Promise.reject(new Error('EntiaClient: auth() needs an apiKey'));
    return abortable(this.credentials.exchange(), callSignal(options, this.timeoutMs));
  }

  /**
   * One database; without a name, the `db` given to the constructor. The same object for the same
   * name, so its schema is fetched once per client. `S` is the schema `entia types` generated.
   */
  db<S extends SchemaShape = AnySchema>(name: string | undefined = this.defaultDb): EntiaDatabase<S> {
    if (name === undefined) throw new Error('EntiaClient: name a database, or pass `db` to the constructor');
    let database = this.databases.get(name);
    if (!database) this.databases.set(name, (database = new EntiaDatabase(this, name, this.schemaTtlMs)));
    return database as unknown as EntiaDatabase<S>;
  }

  /** The bearer token calls carry now (exchanged when none is cached); undefined for an anonymous client. */
  async bearer(): Promise<string | undefined> {
    return this.credentials?.token();
  }

  /**
   * After a 401 with `token`: a fresh token when the key can be exchanged again (one exchange for
   * all callers), else undefined.
   */
  async renewBearer(token: string | undefined): Promise<string | undefined> {
    if (!this.credentials?.canRenew || token === undefined) return undefined;
    return this.credentials.renew(token);
  }

  /** The API's base URL, without a trailing slash. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /**
   * One call, with the current token. A 401 means the token expired or was revoked: the key is
   * exchanged once more and the call repeated once (a POST with the same `Idempotency-Key`); a
   * second 401 is thrown. Retries of 5xx, 429 and network failures happen below, per attempt, and
   * for a POST only under an `Idempotency-Key` (see `RequestOptions`).
   */
  async request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const signal = callSignal(options, this.timeoutMs);
    const credentials = this.credentials;
    const token = credentials ? await abortable(credentials.token(), signal) : undefined;
    const idempotencyKey = method.toUpperCase() !== 'POST' || options.idempotencyKey === false ? undefined : (options.idempotencyKey ?? crypto.randomUUID());
    const call = { method, path, body, idempotencyKey, signal };
    try {
      return await this.transport.send<T>({ ...call, bearer: token });
    } catch (error) {
      if (!(error instanceof EntiaError) || error.status !== 401 || !credentials?.canRenew || token === undefined) throw error;
      return this.transport.send<T>({ ...call, bearer: await abortable(credentials.renew(token), signal) });
    }
  }

  /** The default time limit of a call (`ClientOptions.timeoutMs`). */
  get defaultTimeoutMs(): number {
    return this.timeoutMs;
  }
}
