import * as net from 'node:net';

/**
 * A TCP accept only proves the socket is open; FerretDB and mongod accept before their storage
 * is ready. So send a real `{ping: 1}` as an OP_MSG (wire protocol, opcode 2013) and require
 * `ok: 1`. Hand-rolled to keep this package free of the mongodb driver.
 */
const OP_MSG = 2013;

function cstring(s: string): Buffer {
  return Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
}

function pingDocument(): Buffer {
  const db = Buffer.from('admin', 'utf8');
  const dbLen = Buffer.alloc(4);
  dbLen.writeInt32LE(db.length + 1);
  const one = Buffer.alloc(4);
  one.writeInt32LE(1);
  const body = Buffer.concat([
    Buffer.from([0x10]), cstring('ping'), one, // int32 ping: 1
    Buffer.from([0x02]), cstring('$db'), dbLen, db, Buffer.from([0]), // string $db: "admin"
    Buffer.from([0]),
  ]);
  const len = Buffer.alloc(4);
  len.writeInt32LE(body.length + 4);
  return Buffer.concat([len, body]);
}

function opMsg(requestId: number): Buffer {
  const doc = pingDocument();
  const header = Buffer.alloc(16);
  const flags = Buffer.alloc(4);
  header.writeInt32LE(16 + 4 + 1 + doc.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(OP_MSG, 12);
  return Buffer.concat([header, flags, Buffer.from([0]), doc]);
}

/** Reads the top-level `ok` of a BSON document; skips the value types a ping reply can hold. */
export function bsonOk(doc: Buffer): number | undefined {
  let i = 4;
  while (i < doc.length - 1) {
    const type = doc[i]!;
    const nameEnd = doc.indexOf(0, i + 1);
    if (nameEnd < 0) return undefined;
    const name = doc.toString('utf8', i + 1, nameEnd);
    i = nameEnd + 1;
    let size: number;
    switch (type) {
      case 0x01: // double
        if (name === 'ok') return doc.readDoubleLE(i);
        size = 8;
        break;
      case 0x10: // int32
        if (name === 'ok') return doc.readInt32LE(i);
        size = 4;
        break;
      case 0x12: // int64
        if (name === 'ok') return Number(doc.readBigInt64LE(i));
        size = 8;
        break;
      case 0x08: // bool
        if (name === 'ok') return doc[i];
        size = 1;
        break;
      case 0x09: case 0x11: size = 8; break; // datetime, timestamp
      case 0x07: size = 12; break; // objectId
      case 0x0a: size = 0; break; // null
      case 0x02: size = 4 + doc.readInt32LE(i); break; // string
      case 0x03: case 0x04: size = doc.readInt32LE(i); break; // document, array
      case 0x05: size = 5 + doc.readInt32LE(i); break; // binary
      default: return undefined;
    }
    i += size;
  }
  return undefined;
}

/**
 * What a ping met: `ok` (ok: 1), `failed` (a reply without ok: 1, e.g. not authenticated: a
 * server that answers all the same), `silent` (the connection was taken but no reply came in time, or it
 * was closed first), or `unreachable` with the connect's error code.
 */
export type PingOutcome = { kind: 'ok' } | { kind: 'failed' } | { kind: 'silent' } | { kind: 'unreachable'; code: string };

export function mongoPingOutcome(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<PingOutcome> {
  return new Promise((resolve) => {
    const requestId = Math.floor(Math.random() * 0x7fffffff);
    const socket = net.connect({ port, host });
    let connected = false;
    let buf = Buffer.alloc(0);
    const done = (outcome: PingOutcome): void => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(timeoutMs, () => done(connected ? { kind: 'silent' } : { kind: 'unreachable', code: 'no answer to connect' }));
    socket.once('error', (err: NodeJS.ErrnoException) => done(connected ? { kind: 'silent' } : { kind: 'unreachable', code: err.code ?? err.message }));
    socket.once('close', () => done({ kind: 'silent' }));
    socket.once('connect', () => {
      connected = true;
      socket.write(opMsg(requestId));
    });
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 4) return;
      const total = buf.readInt32LE(0);
      if (buf.length < total) return;
      // header(16) + flags(4) + section kind(1) then the body document
      if (buf.readInt32LE(8) !== requestId || buf.readInt32LE(12) !== OP_MSG || buf[20] !== 0) return done({ kind: 'silent' });
      done(bsonOk(buf.subarray(21, total)) === 1 ? { kind: 'ok' } : { kind: 'failed' });
    });
  });
}

/** Whether the server answers a ping with ok: 1 within `timeoutMs`. */
export async function mongoPing(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  return (await mongoPingOutcome(port, host, timeoutMs)).kind === 'ok';
}
