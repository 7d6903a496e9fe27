/**
 * Change feed benchmark (not a test): end-to-end latency from a write to its event on
 * open streams, and the memory an open stream costs. Starts the API as its own process (the
 * production entry point) on the stack of `.stack/env`, creates a database, opens `--streams`
 * streams (each over its own socket, as separate clients would), then makes `--writes` writes one
 * after the other and times, per stream, from the write's acknowledgment (its HTTP answer) to the
 * event's arrival (negative: the event arrived before the answer). Memory: the API's RSS with no
 * stream and with `--idle` idle streams open.
 *
 *   npm run build && npx tsc -b bench && (set -a; . ./.stack/env; node bench/dist/changes.js --streams 100 --writes 200)
 */
import { createDatabase } from '@entia/entities';
import { freePort } from '@entia/stack';
import { Store } from '@entia/store';
import { createParser } from 'eventsource-parser';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readArgs } from './args';
import { startService } from './load/services';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** An open stream: the arrival time of each event by entity id. */
interface Stream {
  arrivals: Map<string, number>;
  ready: Promise<void>;
  close(): void;
}

function openStream(url: string, token: string): Stream {
  const abort = new AbortController();
  const arrivals = new Map<string, number>();
  let live: () => void = () => {};
  const ready = new Promise<void>((resolve) => (live = resolve));
  void (async () => {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, signal: abort.signal });
    if (res.status !== 200) throw new Error(`stream refused: ${res.status} ${await res.text()}`);
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === 'ready') live();
        else arrivals.set((JSON.parse(event.data) as { entity: string }).entity, performance.now());
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) log(`stream failed: ${String(error)}`);
  });
  return { arrivals, ready, close: () => abort.abort() };
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2), process.env, { streams: 'string', writes: 'string', idle: 'string' }, 'changes [--streams N] [--writes N] [--idle N]');
  const streams = args.integer('streams', 100, 1);
  const writes = args.integer('writes', 200, 1);
  const idle = args.integer('idle', 1000, 1);
  const env = Object.fromEntries(['MONGODB_URL', 'REDIS_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION', 'JWT_SECRET'].map((name) => [name, process.env[name] ?? '']));
  const prefix = `bench${randomBytes(4).toString('hex')}`;
  const controlDb = `bench_ctl_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const api = await startService(
    'api',
    {
      ...env,
      PORT: String(port),
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      REDIS_PREFIX: prefix,
      MONGODB_CONTROL_DB: controlDb,
      RATE_LIMIT_MAX: '1000000',
      CHANGE_STREAMS_PER_PERSON: String(Math.max(streams, idle) + 10),
      CHANGE_STREAMS_MAX: String(Math.max(streams, idle) + 10),
    },
    port,
  );
  const store = Store.open({ url: env.MONGODB_URL!, controlDb, timeoutMs: 60_000, reachMs: 5000 });
  const base = `http://127.0.0.1:${port}`;
  try {
    const created = await createDatabase(store, `bench_c_${randomBytes(4).toString('hex')}`, 'Owner');
    const token = ((await (await fetch(`${base}/api/auth`, { headers: { Authorization: `Bearer ${created.apiKey}` } })).json()) as { token: string }).token;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}/api/${created.db}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { _id: string };
    };
    const type = await post('/entity', [{ type: '_type', reference: created.types.entity }, { type: 'name', string: 'note' }]);
    await post('/entity', [{ type: '_type', reference: created.types.property }, { type: '_parent', reference: type._id }, { type: 'name', string: 'title' }, { type: 'type', string: 'string' }]);
    const url = `${base}/api/${created.db}/changes?_type.reference=${type._id}&props=title`;

    const latency = async (count: number) => {
      const open = Array.from({ length: count }, () => openStream(url, token));
      await Promise.all(open.map((s) => s.ready));
      const acknowledged = new Map<string, number>();
      const sent = new Map<string, number>();
      for (let i = 0; i < writes; i++) {
        const start = performance.now();
        const { _id } = await post('/entity', [{ type: '_type', reference: type._id }, { type: 'title', string: `note ${i}` }]);
        acknowledged.set(_id, performance.now());
        sent.set(_id, start);
      }
      const deadline = Date.now() + 30_000;
      while (open.some((s) => s.arrivals.size < writes) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const fromAck: number[] = [];
      const fromSend: number[] = [];
      let missing = 0;
      for (const s of open) {
        for (const [id, at] of acknowledged) {
          const arrived = s.arrivals.get(id);
          if (arrived === undefined) missing++;
          else {
            fromAck.push(arrived - at);
            fromSend.push(arrived - sent.get(id)!);
          }
        }
        s.close();
      }
      fromAck.sort((a, b) => a - b);
      fromSend.sort((a, b) => a - b);
      const ms = (n: number) => n.toFixed(1);
      return `| ${count} | ${writes} | ${fromAck.length} | ${missing} | ${ms(percentile(fromAck, 50))} | ${ms(percentile(fromAck, 99))} | ${ms(percentile(fromSend, 50))} | ${ms(percentile(fromSend, 99))} |`;
    };

    const rows = [await latency(1), await latency(streams)];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = rssOf(api.pid);
    const held = Array.from({ length: idle }, () => openStream(url, token));
    await Promise.all(held.map((s) => s.ready));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = rssOf(api.pid);
    for (const s of held) s.close();

    process.stdout.write(
      [
        '| streams | writes | events | missing | ack → event p50 ms | p99 ms | send → event p50 ms | p99 ms |',
        '|---|---|---|---|---|---|---|---|',
        ...rows,
        '',
        `API RSS: ${(before / 2 ** 20).toFixed(1)} MiB with no stream, ${(after / 2 ** 20).toFixed(1)} MiB with ${idle} idle streams: ${((after - before) / idle / 1024).toFixed(1)} KiB per stream.`,
        '',
      ].join('\n'),
    );
  } finally {
    await api.stop();
    await store.close();
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
