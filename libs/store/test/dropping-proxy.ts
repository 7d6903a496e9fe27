import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How the one sabotaged request fails: its answer is lost after the server carried it out, or the
 * request itself is lost before the server saw it. Either way the client sees its connection close.
 */
export type Drop = 'answer' | 'request';

function int32(n: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32LE(n);
  return bytes;
}

interface Armed {
  marker: Buffer;
  drop: Drop;
  happened: () => void;
}

/**
 * A TCP proxy in front of a MongoDB-protocol server that forwards everything, except that it can
 * cut the connection of one chosen command at the worst moment: the failure a crashing server or
 * network gives, made deterministic. A command is recognised by its name as the first element of
 * an OP_MSG body (a BSON string element: 0x02, the name, NUL); the driver writes a command in one
 * piece, so the name is within one chunk.
 */
export class DroppingProxy {
  private armed?: Armed;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(targetUrl: string): Promise<DroppingProxy> {
    const target = new URL(targetUrl);
    const server = createServer();
    const proxy = new DroppingProxy(server, { host: target.hostname, port: Number(target.port || 27017) });
    server.on('connection', (client) => proxy.relay(client));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return `mongodb://127.0.0.1:${address.port}/?directConnection=true`;
  }

  /**
   * Cuts the connection of the next `command` (on `collection` only, when given: its value is the
   * command's first element, a BSON string) as `drop` says; resolves once that happened.
   */
  drop(command: string, drop: Drop, collection?: string): Promise<void> {
    const name = Buffer.concat([Buffer.from([0x02]), Buffer.from(command), Buffer.from([0])]);
    const on = collection === undefined ? [] : [int32(Buffer.byteLength(collection) + 1), Buffer.from(collection), Buffer.from([0])];
    return new Promise((happened) => {
      this.armed = { marker: Buffer.concat([name, ...on]), drop, happened };
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    await once(this.server, 'close');
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target);
    // Set when this connection carries the command whose answer is to be lost.
    let losing: Armed | undefined;
    const sever = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', sever);
      socket.on('close', () => {
        this.sockets.delete(socket);
        sever();
      });
    }
    client.on('data', (chunk: Buffer) => {
      const armed = this.armed;
      if (armed && chunk.includes(armed.marker)) {
        this.armed = undefined;
        if (armed.drop === 'request') {
          sever();
          armed.happened();
          return;
        }
        losing = armed;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      // The server's first bytes back mean it has carried the command out.
      if (losing) {
        sever();
        losing.happened();
        return;
      }
      client.write(chunk);
    });
  }
}
