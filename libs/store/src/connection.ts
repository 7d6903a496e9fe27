import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { ControlDb } from './control';
import { EntityCollection, type KeyLookups } from './entities';
import { HistoryCollection } from './history';
import { MongoConnection, type ConnectionEvents, type ConnectionState } from './mongo-connection';
import { Counters } from './counters';
import { DatabaseUsage } from './usage';
import { WebhookDeliveries } from './webhook-deliveries';
import { SortIndexes, type SortIndexWarn } from './sort-indexes';
import { TENANT_COLLECTIONS } from './collections';

export interface StoreOptions {
  url: string;
  controlDb: string;
  /** The time limit (`maxTimeMS`) of every query. */
  timeoutMs: number;
  /** How long finding, connecting to and hearing from the server may take before it counts as unreachable. */
  reachMs: number;
  /** Command monitoring, which `onCommand` needs; on, the driver decodes every reply once more. */
  monitorCommands?: boolean;
  /** Told when the first connect fails and when it succeeds (for the log). */
  events?: ConnectionEvents;
  /** Where a sort index that could not be built is reported (`SortIndexes`; the log at warn). */
  warn?: SortIndexWarn;
}

/**
 * How an unreachable or hung MongoDB becomes an error within about 1.5 × `reachMs`, while a query
 * that is merely slow keeps its `timeoutMs` (they cannot be told apart on the query's own socket):
 * - finding a server and opening a connection give up after `reachMs`: a dead server is a
 *   `MongoServerSelectionError` then, not a wait;
 * - the driver's monitor asks the server `hello` on a connection of its own every
 *   `heartbeatMs`, with `reachMs` to answer. A hung server (SIGSTOP, a frozen VM: connections are
 *   accepted, nothing answers) fails that check, and the driver then interrupts every operation
 *   in flight on it (CMAP: a monitor's network timeout clears the pool with
 *   interruptInUseConnections), so they fail instead of hanging. A live but busy server answers
 *   `hello` at once and its slow queries run on, bounded only by `maxTimeMS`;
 * - reads are not retried by the driver: a retry would wait for server selection once more and
 *   double the time to the answer, and the API's clients retry a 503 themselves. Retryable
 *   writes stay on, they make a write sent twice apply once.
 *
 * Command monitoring only when asked for (`monitorCommands`, MONGODB_COMMAND_METRICS): then
 * `Store.onCommand` sees what the process asks of the database (the metric `mongodb_commands_total`),
 * at the cost of the driver decoding each reply once more for the event (about 3 µs per KiB:
 * bench/README.md, "Load benchmark").
 */
function clientOptions(options: StoreOptions) {
  return {
    serverSelectionTimeoutMS: options.reachMs,
    connectTimeoutMS: options.reachMs,
    // The driver's floor is 500 ms (minHeartbeatFrequencyMS).
    heartbeatFrequencyMS: Math.max(500, Math.round(options.reachMs / 2)),
    retryReads: false,
    appName: 'entia',
    monitorCommands: options.monitorCommands === true,
  };
}

/**
 * One MongoDB client for the process. Each tenant `{db}` is its own MongoDB database (hard
 * isolation by construction); the control database holds what spans tenants.
 */
export class Store {
  /** One handle per tenant database: making one per request was a measurable share of a cached GET. */
  private readonly collections = new Map<string, EntityCollection>();
  private readonly histories = new Map<string, HistoryCollection>();
  private readonly deliveryLogs = new Map<string, WebhookDeliveries>();

  private asked?: Promise<KeyLookups>;
  private readonly connection: MongoConnection;
  /** The sort indexes built on first use, for every tenant database of this process. */
  readonly sortIndexes: SortIndexes;

  private constructor(
    readonly client: MongoClient,
    private readonly options: StoreOptions,
  ) {
    this.connection = new MongoConnection(client, options.events);
    this.sortIndexes = new SortIndexes((name) => this.database(name).collection(TENANT_COLLECTIONS.entities), options.warn);
  }

  /**
   * Which filters the engine serves from its primary key, asked once (`buildInfo`; a failure is
   * asked again next time). FerretDB 1.24 serves a lone `_id` equality only: `{_id, __v}` is a
   * scan of the whole collection there (docs/decisions.md, "Compare-and-set on FerretDB").
   */
  keyLookups(): Promise<KeyLookups> {
    this.asked ??= this.control
      .command({ buildInfo: 1 })
      .then((info): KeyLookups => (typeof info.ferretdbVersion === 'string' ? 'lone-id' : 'compound'))
      .catch((error: unknown) => {
        this.asked = undefined;
        throw error;
      });
    return this.asked;
  }

  static fromSettings(
    settings: {
      MONGODB_URL: string;
      MONGODB_CONTROL_DB: string;
      MONGODB_TIMEOUT_MS: number;
      DEPENDENCY_TIMEOUT_MS: number;
      MONGODB_COMMAND_METRICS?: boolean;
    },
    events?: ConnectionEvents,
    warn?: SortIndexWarn,
  ): Store {
    return Store.open({
      url: settings.MONGODB_URL,
      controlDb: settings.MONGODB_CONTROL_DB,
      timeoutMs: settings.MONGODB_TIMEOUT_MS,
      reachMs: settings.DEPENDENCY_TIMEOUT_MS,
      monitorCommands: settings.MONGODB_COMMAND_METRICS === true,
      ...(events ? { events } : {}),
      ...(warn ? { warn } : {}),
    });
  }

  /**
   * Starts connecting at once and keeps trying until MongoDB answers (`MongoConnection`): the
   * service starts even while MongoDB is down, /readyz says so, and it serves once MongoDB does.
   */
  static open(options: StoreOptions): Store {
    return new Store(new MongoClient(options.url, clientOptions(options)), options);
  }

  /** Whether the first connect has succeeded, is still being tried (and why it failed last), or the store is closed. */
  get connectionState(): ConnectionState {
    return this.connection.state;
  }

  /** Why this store can never reach MongoDB again by itself (liveness fails then); undefined while it can. */
  get stuck(): string | undefined {
    return this.connection.stuck;
  }

  /**
   * Resolves once MongoDB has answered a first connect; with `signal`, rejects with the latest
   * failure when it aborts first. For commands that are run once and should wait for a MongoDB
   * that is starting rather than fail at once.
   */
  whenConnected(signal?: AbortSignal): Promise<void> {
    return this.connection.whenConnected(signal);
  }

  get controlDbName(): string {
    return this.options.controlDb;
  }

  get control(): Db {
    return this.client.db(this.options.controlDb);
  }

  get registry(): ControlDb {
    return new ControlDb(this.control);
  }

  database(name: string): Db {
    return this.client.db(name);
  }

  entities(name: string): EntityCollection {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new EntityCollection(this.database(name), this.options.timeoutMs, () => this.keyLookups(), (sort) => this.sortIndexes.note(name, sort));
      this.collections.set(name, collection);
    }
    return collection;
  }

  /** One handle per tenant database, like `entities`: every write records history through it. */
  history(name: string): HistoryCollection {
    let history = this.histories.get(name);
    if (!history) {
      history = new HistoryCollection(this.database(name), this.options.timeoutMs);
      this.histories.set(name, history);
    }
    return history;
  }

  /**
   * What a tenant database holds, counted; each count within `maxTimeMS` (by default the query
   * time limit; null: none, for an operator's command that may take what it takes).
   */
  usage(name: string, maxTimeMS: number | null = this.options.timeoutMs): DatabaseUsage {
    return new DatabaseUsage(this.database(name), maxTimeMS);
  }

  /** The counters of a tenant database. */
  counters(name: string): Counters {
    return new Counters(this.database(name), this.options.timeoutMs);
  }

  /** The delivery log of a tenant database's webhooks. */
  deliveries(name: string): WebhookDeliveries {
    let deliveries = this.deliveryLogs.get(name);
    if (!deliveries) {
      deliveries = new WebhookDeliveries(this.database(name), this.options.timeoutMs);
      this.deliveryLogs.set(name, deliveries);
    }
    return deliveries;
  }

  /** Builds the indexes a tenant database lacks (its entities', its history's, its webhook deliveries'); resolves with the names built. */
  async ensureTenantIndexes(name: string): Promise<string[]> {
    return [...(await this.entities(name).ensureIndexes()), ...(await this.history(name).ensureIndexes()), ...(await this.deliveries(name).ensureIndexes())];
  }

  /**
   * Calls `listener` with the name of every command this client sends: the name only, never the
   * command (it holds the values written and the filters read). The driver's heartbeats are no
   * commands; a readiness `ping` is. Returns the way to stop listening.
   */
  onCommand(listener: (name: string) => void): () => void {
    const started = (event: CommandStartedEvent) => listener(event.commandName);
    this.client.on('commandStarted', started);
    return () => void this.client.off('commandStarted', started);
  }

  async ping(): Promise<void> {
    try {
      await this.control.command({ ping: 1 });
    } catch (error) {
      // Between two connect attempts the driver says only "Topology is closed": say why instead.
      const state = this.connection.state;
      throw state.kind === 'connecting' && state.lastError !== undefined ? state.lastError : error;
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
