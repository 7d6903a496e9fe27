import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMinio, type ManagedServer } from '@entia/stack';
import { Timings, expectFastUnavailable, timed, until, type Answer } from './faults';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { testApi } from './support';
import { testTenant } from './tenant';

const READINESS_TIMEOUT_MS = 1500;
// A probe is bounded by READINESS_TIMEOUT_MS; this much more covers the HTTP round trip on a busy machine.
const PROBE_SLACK_MS = 1000;
// How long a restarted or resumed MinIO, and the API's connections to it, may take to serve again.
const RECOVERY_MS = 30_000;
const BUCKET = 'entia-faults';

// The API runs as a real process against object storage of its own (MinIO), which the tests kill
// and pause; MongoDB and Redis are the test stack's and keep working. Only file downloads need
// storage to answer: signing URLs happens in the API.
describe('the API through an object storage outage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-storage-outage-'));
  const timings = new Timings();
  let minio: ManagedServer & { endpoint: string; accessKey: string; secretKey: string };
  let api: Spawned;
  let base: string;
  let db: string;
  let auth: string;
  let docType: string;
  let docId: string;
  let fileValue: string;

  beforeAll(async () => {
    minio = await startMinio({ dir: join(dir, 'minio'), bucket: BUCKET });
    const storage = { S3_ENDPOINT: minio.endpoint, S3_ACCESS_KEY: minio.accessKey, S3_SECRET_KEY: minio.secretKey, S3_BUCKET: BUCKET };
    // A file value uploaded through the API's own code in-process; then only the spawned API serves it.
    const setup = testApi(storage);
    const t = await testTenant(setup);
    docType = await t.defineType('doc', [{ name: 'scan', type: 'file' }]);
    const bytes = randomBytes(1024);
    const created = await t.create([{ type: '_type', reference: docType }, { type: 'scan', filename: 'scan.bin', filesize: bytes.length, filetype: 'application/octet-stream' }]);
    const scan = created.body.properties.scan[0] as { _id: string; upload: { url: string; method: string; headers: Record<string, string> } };
    expect((await fetch(scan.upload.url, { method: scan.upload.method, headers: scan.upload.headers, body: bytes })).status).toBe(200);
    [db, auth, docId, fileValue] = [t.db, t.owner.auth, created.body._id, scan._id];
    const controlDb = setup.deps.config.MONGODB_CONTROL_DB;
    await t.close();
    await setup.close();

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    api = spawnService(API_MAIN, stackEnv({ ...storage, MONGODB_CONTROL_DB: controlDb, PORT: String(port), READINESS_TIMEOUT_MS: String(READINESS_TIMEOUT_MS) }));
    await waitForStatus(`${base}/readyz`, (s) => s === 200, 20_000);
  }, 180_000);

  afterAll(async () => {
    timings.print('times to an answer, object storage outages (ms)');
    await api?.stop();
    await minio?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const headers = () => ({ authorization: auth, 'content-type': 'application/json' });
  const download = () => timed(`${base}/api/${db}/property/${fileValue}?download=true`, { headers: headers() });
  const property = () => timed(`${base}/api/${db}/property/${fileValue}`, { headers: headers() });
  const entity = () => timed(`${base}/api/${db}/entity/${docId}`, { headers: headers() });
  const newFile = () =>
    timed(`${base}/api/${db}/entity`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify([{ type: '_type', reference: docType }, { type: 'scan', filename: 'new.bin', filesize: 10, filetype: 'application/octet-stream' }]),
    });

  /** What does not need storage keeps working: reading the value (its URL is signed here), the entity, a new file value. */
  async function expectOtherRoutesServed(scenario: string): Promise<void> {
    const answers: [string, Answer, number][] = [
      ['GET property', await property(), 200],
      ['GET entity', await entity(), 200],
      ['POST entity with a file value', await newFile(), 201],
    ];
    for (const [what, answer, status] of answers) {
      timings.record(`${scenario}: ${what}`, answer);
      expect({ what, status: answer.status }).toEqual({ what, status });
    }
    expect(answers[0]![1].body.url).toEqual(expect.stringContaining(minio.endpoint));
  }

  async function expectDegraded(scenario: string): Promise<void> {
    const probe = timings.record(`${scenario}: /readyz`, await timed(`${base}/readyz`));
    expect(probe.ms).toBeLessThan(READINESS_TIMEOUT_MS + PROBE_SLACK_MS);
    expect({ status: probe.status, body: probe.body }).toEqual({
      status: 200,
      // Why, in one line: refused (killed) or no answer in time (paused).
      body: { status: 'degraded', degraded: ['storage'], checks: { mongodb: 'up', redis: 'up', storage: 'down' }, reasons: { storage: expect.stringMatching(/ECONNREFUSED|did not answer|no answer/) } },
    });
  }

  async function expectRecovered(): Promise<void> {
    await until(download, (answer) => answer.status === 302, RECOVERY_MS);
    await until(() => timed(`${base}/readyz`), (answer) => answer.body.status === 'ready', RECOVERY_MS);
  }

  it('storage killed: downloads are 503 with Retry-After within 2.5 s, other routes are served, readiness stays 200 naming storage; back after a restart', async () => {
    expect((await download()).status).toBe(302);
    await minio.kill();
    for (let i = 0; i < 2; i++) expectFastUnavailable(timings.record('storage killed: GET ?download=true', await download()));
    await expectOtherRoutesServed('storage killed');
    await expectDegraded('storage killed');
    expect(api.child.exitCode).toBeNull();

    await minio.restart();
    await expectRecovered();
  }, 120_000);

  it('storage paused: downloads are 503 within 2.5 s, never a hang, other routes are served; back after SIGCONT', async () => {
    expect((await download()).status).toBe(302);
    minio.pause();
    try {
      const [first, second] = await Promise.all([download(), download()]);
      expectFastUnavailable(timings.record('storage paused: GET ?download=true', first));
      expectFastUnavailable(timings.record('storage paused: GET ?download=true, concurrent', second));
      expectFastUnavailable(timings.record('storage paused: GET ?download=true, later', await download()));
      await expectOtherRoutesServed('storage paused');
      await expectDegraded('storage paused');
    } finally {
      minio.resume();
    }
    await expectRecovered();
  }, 120_000);
});
