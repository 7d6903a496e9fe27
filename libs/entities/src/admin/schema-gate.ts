import { schemaVerdict } from '@entia/domain';
import { SCHEMA_VERSION, SchemaRecords, type Store } from '@entia/store';

/**
 * Where a process stands with the stored schema:
 * - `unknown`: not read yet (MongoDB has not answered): not served, but never taken for an old schema;
 * - `behind`: older than this code needs: not served until `entia-admin migrate` has run;
 * - `serving`: current, fresh, or newer (served with a warning: migrations only add).
 */
export type GateState =
  | { kind: 'unknown'; reason: string }
  | { kind: 'behind'; stored: number; needed: number; reason: string }
  | { kind: 'serving'; stored: number | undefined; needed: number; warning?: string };

export interface GateLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * Reads the stored schema version at start and, until it may serve, every `intervalMs` (so a
 * rollout that waits for `migrate` needs no crash loop: the pods start serving once it is done).
 * Once serving it stops looking. Each new state is logged once (`behind` at error).
 */
export class SchemaGate {
  private current: GateState = { kind: 'unknown', reason: 'starting: the schema version has not been read yet' };
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private warned = false;
  private checking = false;
  private again = false;
  private readonly opened: Promise<void>;
  private open!: () => void;

  constructor(
    private readonly store: Store,
    private readonly log: GateLog,
    private readonly options: { intervalMs?: number; onChange?(state: GateState): void } = {},
  ) {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  get state(): GateState {
    return this.current;
  }

  /** Why requests and jobs are held back; undefined once serving. */
  get reason(): string | undefined {
    return this.current.kind === 'serving' ? undefined : this.current.reason;
  }

  /** Resolves once the process may serve (never, if stopped before). */
  whenServing(): Promise<void> {
    return this.opened;
  }

  start(): this {
    void this.check();
    // MongoDB answering its first connect is news the interval need not be waited out for.
    void this.store.whenConnected().then(() => this.checkSoon());
    return this;
  }

  private checkSoon(): void {
    if (this.stopped || this.current.kind === 'serving') return;
    if (this.checking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    void this.check();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async check(): Promise<void> {
    this.checking = true;
    let next: GateState;
    try {
      const stored = await new SchemaRecords(this.store.control).read();
      const verdict = schemaVerdict(stored, SCHEMA_VERSION);
      next = verdict.serve
        ? { kind: 'serving', stored: stored.version, needed: SCHEMA_VERSION, ...(verdict.state === 'newer' ? { warning: verdict.message } : {}) }
        : { kind: 'behind', stored: stored.version ?? 0, needed: SCHEMA_VERSION, reason: verdict.message };
    } catch (error) {
      // Unreachable is not old: keep asking, say so once.
      next = { kind: 'unknown', reason: `starting: the schema version could not be read (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
    }
    this.checking = false;
    if (this.stopped) return;
    this.change(next);
    if (next.kind === 'serving') this.open();
    else if (this.again) {
      // The connect succeeded while this read was failing: read again now.
      this.again = false;
      void this.check();
    } else {
      this.timer = setTimeout(() => void this.check(), this.options.intervalMs ?? 5000);
      this.timer.unref();
    }
  }

  private change(next: GateState): void {
    const before = this.current;
    this.current = next;
    if (JSON.stringify(before) === JSON.stringify(next)) return;
    if (next.kind === 'behind') this.log.error({ stored: next.stored, needed: next.needed }, next.reason);
    else if (next.kind === 'unknown') {
      // Once per outage, not once per attempt (the reason's error text may vary between attempts).
      if (before.kind !== 'unknown' || !this.warned) this.log.warn({}, next.reason);
      this.warned = true;
    } else if (next.warning) this.log.warn({ stored: next.stored, needed: next.needed }, next.warning);
    else this.log.info({ stored: next.stored ?? 'fresh', needed: next.needed }, 'schema version current: serving');
    this.options.onChange?.(next);
  }
}
