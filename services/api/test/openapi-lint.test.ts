import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { testApi, type TestApi } from './support';

// The document the app serves, linted by Redocly CLI (pinned in the root devDependencies, bundled:
// it runs offline) with the rules in redocly.yaml beside this file. Any error or warning fails.
const root = join(__dirname, '..', '..', '..');
const CLI = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const CONFIG = join(__dirname, 'redocly.yaml');

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}
interface LintReport {
  totals: { errors: number; warnings: number };
  problems: LintProblem[];
}

async function lint(document: unknown, dir: string): Promise<LintReport> {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document, null, 2));
  // No telemetry, no update check: the linter must not reach for the network.
  const env = { PATH: process.env.PATH ?? '', HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const run = promisify(execFile)(process.execPath, [CLI, 'lint', file, '--config', CONFIG, '--format', 'json', '--max-problems', '1000'], {
    cwd: dir,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  // It exits 1 when it finds errors; the report on stdout is what counts.
  const { stdout } = await run.catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(stdout.slice(stdout.indexOf('{'))) as LintReport;
}

const shown = (report: LintReport) =>
  report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);

describe('the OpenAPI document the API serves', () => {
  let api: TestApi;
  let dir: string;
  beforeAll(() => {
    api = testApi();
    dir = mkdtempSync(join(tmpdir(), 'entia-openapi-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await api.close();
  });

  it('passes `redocly lint` with no error and no warning', async () => {
    const res = await request(api.app).get('/api/openapi.json');
    expect(res.status).toBe(200);
    const report = await lint(res.body, dir);
    expect(shown(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('the linter does find problems: an undeclared scheme, a 4xx that is not problem details, a parameter without description', async () => {
    const res = await request(api.app).get('/api/openapi.json');
    const broken = structuredClone(res.body);
    const create = broken.paths['/api/{db}/entity'].post;
    create.security = [{ nowhere: [] }];
    create.responses['404'] = { description: 'Not found, as plain text.' };
    delete create.parameters[0].description;
    const report = await lint(broken, dir);
    expect(report.totals.errors).toBeGreaterThanOrEqual(3);
    expect(report.problems.map((p) => p.ruleId)).toEqual(
      expect.arrayContaining(['security-defined', 'operation-4xx-problem-details-rfc7807', 'parameter-description']),
    );
  }, 60_000);
});
