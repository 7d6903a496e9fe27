import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { trackTempDir } from './cleanup';
import { StackError } from './errors';
import { onceSignal } from './signals';
import { startStack } from './stack';
import { ensureTestTools } from './test-tools';
import { stderrLog } from './log';

interface JestJson {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: { status?: string; assertionResults?: unknown[] }[];
}

/** The line CI greps for; the counts come from jest's own JSON report. */
export function summaryLine(report: JestJson | undefined): string {
  if (!report) return '0 passed, 1 failed';
  // A suite that fails to load (syntax error, throwing import) has no tests, so jest's test
  // counts would hide it; count each such suite as one failure.
  const brokenSuites = (report.testResults ?? []).filter((r) => r.status === 'failed' && !r.assertionResults?.length).length;
  const passed = report.numPassedTests ?? 0;
  const failed = (report.numFailedTests ?? 0) + brokenSuites;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

function readReport(file: string): JestJson | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as JestJson;
  } catch {
    return undefined;
  }
}

/** `test`: jest against an ephemeral stack. Resolves to the summary line and the exit code. */
export async function runTests(repo: string, jestArgs: string[]): Promise<{ summary: string; code: number }> {
  const jest = path.join(repo, 'node_modules', 'jest', 'bin', 'jest.js');
  if (!fs.existsSync(jest)) throw new StackError(`${jest} not found: run \`npm install\` at the repo root`);
  // ENTIA_TEST_TOOLS=0 skips them, for a run of test files that need none of them (say
  // `ENTIA_TEST_TOOLS=0 npm test -- libs/domain`): on a fresh machine they take minutes to install.
  if (process.env.ENTIA_TEST_TOOLS !== '0') await ensureTestTools(repo, process.env, stderrLog);
  // With an SMTP server: the invitation tests read what the API e-mailed (ENTIA_TEST_SMTP_URL, ENTIA_TEST_MAILPIT_URL).
  const stack = await startStack({ mail: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-jest-'));
  const untrackTmp = trackTempDir(tmp);
  const outputFile = path.join(tmp, 'jest.json');
  try {
    const child = spawn(process.execPath, [jest, '--json', `--outputFile=${outputFile}`, ...jestArgs], {
      cwd: repo,
      env: { ...process.env, ...stack.env, ENTIA_TEST_STACK: '1' },
      stdio: 'inherit',
    });
    // Jest shares our terminal, so Ctrl-C reaches it directly; a signal sent only to us is
    // passed on. Either way we wait for jest to finish and then stop the stack ourselves.
    void onceSignal(() => child.kill('SIGKILL')).then((sig) => child.kill(sig));
    const code = await new Promise<number>((resolve) => {
      child.once('error', () => resolve(1));
      child.once('exit', (c, sig) => resolve(c ?? (sig ? 128 + (os.constants.signals[sig] ?? 0) : 1)));
    });
    const report = readReport(outputFile);
    const summary = summaryLine(report);
    const failed = !report || !summary.includes(' 0 failed');
    return { summary, code: code === 0 && failed ? 1 : code };
  } finally {
    await stack.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
    untrackTmp();
  }
}
