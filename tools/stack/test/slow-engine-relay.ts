import * as net from 'node:net';

export interface SlowEngineOptions {
  /** How long the engine takes to answer after it was woken: longer than a client's time limit makes that client's first try fail. */
  wakeMs: number;
  /** How long awake without any open connection puts it back to sleep. */
  idleMs: number;
}

/**
 * A TCP relay in front of a MongoDB-protocol server that makes it an engine slow to its first
 * answer, again and again: it falls asleep once it has been awake with no connection open for
 * `idleMs`, and the first connection after that wakes it: nothing it sends reaches any client until `wakeMs`
 * later (requests go through at once; only answers are held). As FerretDB busy starting on a
 * loaded machine, or an auto-suspended database. Every client process that starts after the
 * previous one has gone — the stack's own ping, `entia-admin migrate`, then the API and the
 * worker — meets a sleeping engine.
 *
 * Not a hold of each connection's first answer: a client whose every connection waited longer
 * than its connect time limit (`DEPENDENCY_TIMEOUT_MS`, the driver's handshake limit too) could
 * never connect at all.
 */
export class SlowEngineRelay {
  /** Times the engine was woken. */
  wakes = 0;
  /** Connections whose client hung up before the engine was awake: clients that gave up on it. */
  abandoned = 0;
  private awakeAt = 0;
  private open = 0;
  private idleSince = -Infinity;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    private readonly target: { host: string; port: number },
    private readonly options: SlowEngineOptions,
  ) {
    server.on('connection', (client) => this.relay(client));
  }

  static async start(target: { host: string; port: number }, options: SlowEngineOptions): Promise<SlowEngineRelay> {
    const server = net.createServer();
    const relay = new SlowEngineRelay(server, target, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return relay;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  get url(): string {
    return `mongodb://127.0.0.1:${this.port}/`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    const now = Date.now();
    // Once awake, it stays so for `idleMs` at least, whether anyone waited for it or not.
    const asleep = this.open === 0 && now - Math.max(this.idleSince, this.awakeAt) >= this.options.idleMs;
    if (asleep) {
      this.awakeAt = now + this.options.wakeMs;
      this.wakes++;
    }
    const releaseAt = this.awakeAt;
    this.open++;
    const engine = net.connect(this.target);
    this.sockets.add(client).add(engine);
    const held: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const release = (): void => {
      timer = undefined;
      for (const chunk of held.splice(0)) client.write(chunk);
      if (ended) client.end();
    };
    engine.on('data', (chunk: Buffer) => {
      if (Date.now() >= releaseAt && held.length === 0) return void client.write(chunk);
      held.push(chunk);
      timer ??= setTimeout(release, Math.max(0, releaseAt - Date.now()));
    });
    client.on('data', (chunk: Buffer) => engine.write(chunk));
    engine.on('end', () => {
      ended = true;
      if (!timer) client.end();
    });
    client.on('end', () => engine.end());
    engine.on('error', () => client.destroy());
    client.on('error', () => engine.destroy());
    client.on('close', () => {
      clearTimeout(timer);
      engine.destroy();
      this.sockets.delete(client);
      this.sockets.delete(engine);
      if (Date.now() < releaseAt) this.abandoned++;
      if (--this.open === 0) this.idleSince = Date.now();
    });
  }
}
