import { tryConnect, within } from './tcp-probe';

/**
 * What a ping met: `ok` (ok: 1), `failed` (a reply without ok: 1, e.g. not authenticated: a
 * server that answers all the same), `silent` (the connection was taken but no reply came in time, or it
 * was closed first), or `unreachable` with the connect's error code.
 */
export type PingOutcome = { kind: 'ok' } | { kind: 'failed' } | { kind: 'silent' } | { kind: 'unreachable'; code: string };

/**
 * A TCP accept only proves the socket is open; FerretDB and mongod accept before their storage is
 * ready. So the MongoDB driver sends a real `{ping: 1}`, and `ok: 1` is required. A connect refused
 * is known at once (the driver would wait out its server selection before saying so), so the
 * port is tried first; the driver is loaded only when a ping is sent, not when the CLI starts (it
 * may start on the machine's Node, before running itself again on the pinned one).
 */
export async function mongoPingOutcome(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<PingOutcome> {
  const started = Date.now();
  const connect = await tryConnect(port, host, timeoutMs);
  if (!connect.taken) return { kind: 'unreachable', code: connect.code };
  const { MongoClient, MongoServerError } = await import('mongodb');
  const left = Math.max(1, timeoutMs - (Date.now() - started));
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const client = new MongoClient(`mongodb://${address}/`, {
    directConnection: true,
    serverSelectionTimeoutMS: left,
    connectTimeoutMS: left,
    socketTimeoutMS: left,
    maxPoolSize: 1,
    retryReads: false,
  });
  const ping = client
    .db('admin')
    .command({ ping: 1 })
    .then((reply): PingOutcome => (reply.ok === 1 ? { kind: 'ok' } : { kind: 'failed' }))
    // A server's refusal is an answer; anything else (no reply in time, the connection closed) is not.
    .catch((err: unknown): PingOutcome => (err instanceof MongoServerError ? { kind: 'failed' } : { kind: 'silent' }));
  try {
    return await within(left, ping, { kind: 'silent' });
  } finally {
    void client.close().catch(() => undefined);
  }
}

/** Whether the server answers a ping with ok: 1 within `timeoutMs`. */
export async function mongoPing(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  return (await mongoPingOutcome(port, host, timeoutMs)).kind === 'ok';
}
