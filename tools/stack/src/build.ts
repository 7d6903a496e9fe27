import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { binDir, withLock } from './cache';
import { StackError } from './errors';
import type { Log } from './log';
import { runCommand } from './process';
import { which } from './which';

/** A server we compile from Go source once per machine and keep in the cache. */
interface BinarySpec {
  name: 'ferretdb' | 'minio' | 'promtool' | 'mailpit';
  label: string;
  version: string;
  /** Env var pointing at a prebuilt binary, which then skips the build entirely. */
  overrideEnv: string;
  /** What a binary that runs answers with exit code 0 (its smoke test); `--version` unless given. */
  smokeArgs?: string[];
  build(ctx: BuildContext): Promise<string>;
}

interface BuildContext {
  go: string;
  tmp: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
}

export const FERRETDB_VERSION = 'v1.24.2';
// The proxy serves only this pseudo-version of MinIO; other commits are refused (403).
export const MINIO_MODULE_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
// Prometheus's Go module numbers Prometheus 3.<minor>.<patch> as v0.3<minor, 2 digits>.<patch>.
export const PROMTOOL_MODULE_VERSION = 'v0.316.0';
// The proxy serves v1.27.11 and v1.33.1 of Mailpit (not v1.27.0).
export const MAILPIT_VERSION = 'v1.33.1';

async function go(ctx: BuildContext, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await runCommand(ctx.go, args, { cwd, env: { ...ctx.env, GOWORK: 'off', ...extraEnv }, logFile: ctx.logFile });
  if (r.code !== 0) {
    const lines = fs.readFileSync(ctx.logFile, 'utf8').trimEnd().split('\n');
    const reason = lines.filter((l) => l.trim() && !l.startsWith('===')).pop() ?? `exit code ${r.code}`;
    throw new StackError(`\`go ${args.join(' ')}\` failed: ${reason.trim()} (full log: ${ctx.logFile})`);
  }
  return r.stdout;
}

function makeWritable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(p);
    else fs.chmodSync(p, 0o644);
  }
}

/** `go install <args>` into the build's temporary GOBIN; resolves to the installed binary `name`. */
async function goInstall(ctx: BuildContext, name: string, args: string[]): Promise<string> {
  const gobin = path.join(ctx.tmp, 'bin');
  await go(ctx, ['install', ...args], ctx.tmp, { GOBIN: gobin });
  return path.join(gobin, name);
}

export const FERRETDB: BinarySpec = {
  name: 'ferretdb',
  label: `FerretDB ${FERRETDB_VERSION}`,
  version: FERRETDB_VERSION,
  overrideEnv: 'ENTIA_FERRETDB_BIN',
  // `go install …/cmd/ferretdb@v` is refused by the proxy here (its deprecation lookup of
  // @v/list gets a 403), and even where it works the binary panics at start because the module
  // zip lacks build/version/version.txt, which is embedded at compile time. So build from the
  // downloaded module source with that file written in.
  async build(ctx) {
    const module = `github.com/FerretDB/FerretDB@${FERRETDB_VERSION}`;
    const out = await go(ctx, ['mod', 'download', '-json', module], ctx.tmp);
    const info = JSON.parse(out) as { Dir?: string; Error?: string };
    if (!info.Dir) throw new StackError(`\`go mod download ${module}\` failed: ${info.Error ?? 'no Dir in output'}`);
    const src = path.join(ctx.tmp, 'src');
    fs.cpSync(info.Dir, src, { recursive: true });
    makeWritable(src); // module cache files are read-only
    fs.writeFileSync(path.join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    const bin = path.join(ctx.tmp, 'ferretdb');
    await go(ctx, ['build', '-trimpath', '-o', bin, './cmd/ferretdb'], src);
    return bin;
  },
};

export const MINIO: BinarySpec = {
  name: 'minio',
  label: `MinIO ${MINIO_MODULE_VERSION.slice(-12)}`,
  version: MINIO_MODULE_VERSION.slice(-12),
  overrideEnv: 'ENTIA_MINIO_BIN',
  build: (ctx) => goInstall(ctx, 'minio', [`github.com/minio/minio@${MINIO_MODULE_VERSION}`]),
};

/**
 * promtool, for the tests of the alert rules and the dashboard's queries (tools/deploy/test/
 * monitoring*.test.ts): `promtool check rules` and `promtool test rules` are Prometheus's own
 * parser and rule evaluator, which no npm package matches.
 */
export const PROMTOOL: BinarySpec = {
  name: 'promtool',
  label: `promtool ${PROMTOOL_MODULE_VERSION}`,
  version: PROMTOOL_MODULE_VERSION,
  overrideEnv: 'ENTIA_PROMTOOL_BIN',
  build(ctx) {
    // The version `promtool --version` prints (v0.316.0 is Prometheus 3.16.0), stamped as a release build does.
    const release = PROMTOOL_MODULE_VERSION.replace(/^v0\.3(\d\d)\./, (_, minor: string) => `3.${Number(minor)}.`);
    const stamp = `-X github.com/prometheus/common/version.Version=${release}`;
    // remove_all_sd: without the cloud service discoveries (AWS, Azure, GCE, …), which checking and
    // testing rules never use and which are most of the build.
    return goInstall(ctx, 'promtool', ['-trimpath', '-tags', 'remove_all_sd', '-ldflags', stamp, `github.com/prometheus/prometheus/cmd/promtool@${PROMTOOL_MODULE_VERSION}`]);
  },
};

/**
 * Mailpit, the SMTP server of the test stack: it takes every message and shows
 * it through its HTTP API, where the invitation tests read what was delivered. A `go install`
 * (about 35 s here with a cold module cache). It has no `--version` (its `version` asks GitHub).
 */
export const MAILPIT: BinarySpec = {
  name: 'mailpit',
  label: `Mailpit ${MAILPIT_VERSION}`,
  version: MAILPIT_VERSION,
  overrideEnv: 'ENTIA_MAILPIT_BIN',
  smokeArgs: ['--help'],
  build: (ctx) => goInstall(ctx, 'mailpit', ['-trimpath', `github.com/axllent/mailpit@${MAILPIT_VERSION}`]),
};

export function binaryPath(spec: BinarySpec, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(binDir(env), `${spec.name}-${spec.version}`, spec.name);
}

function smokeTest(bin: string, args = ['--version']): string | undefined {
  const r = spawnSync(bin, args, { timeout: 30_000, encoding: 'utf8' });
  if (r.error) return r.error.message;
  if (r.status !== 0) return (r.stderr || r.stdout).trim().split('\n')[0] ?? `exit code ${r.status}`;
  return undefined;
}

/**
 * A binary counts as good once it has run `--version` successfully; the stamp (size + mtime)
 * saves doing that on every start, and catches a binary replaced behind our back.
 */
function verified(bin: string, log: Log | undefined, label: string, smokeArgs?: string[]): boolean {
  const st = fs.statSync(bin, { throwIfNoEntry: false });
  if (!st) return false;
  const stampFile = `${bin}.verified`;
  const stamp = `${st.size}:${st.mtimeMs}`;
  if (readOrEmpty(stampFile) === stamp) return true;
  const problem = smokeTest(bin, smokeArgs);
  if (problem) {
    log?.(`cached ${label} at ${bin} does not run (${problem}); rebuilding`);
    return false;
  }
  fs.writeFileSync(stampFile, stamp);
  return true;
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function findGo(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ENTIA_GO && !fs.existsSync(env.ENTIA_GO)) throw new StackError(`ENTIA_GO=${env.ENTIA_GO} does not exist: fix or unset it`);
  return (
    env.ENTIA_GO ||
    which('go', env) ||
    [env.GOROOT && path.join(env.GOROOT, 'bin', 'go'), '/usr/local/go/bin/go'].find(
      (p): p is string => !!p && fs.existsSync(p),
    )
  );
}

export interface EnsuredBinary {
  path: string;
  built: boolean;
  ms: number;
}

/** The cached binary, building it (atomically, one builder at a time) when missing. */
export async function ensureBinary(spec: BinarySpec, env: NodeJS.ProcessEnv, log: Log): Promise<EnsuredBinary> {
  const started = Date.now();
  const override = env[spec.overrideEnv];
  if (override) {
    if (!fs.existsSync(override)) throw new StackError(`${spec.overrideEnv}=${override} does not exist: fix or unset it`);
    return { path: override, built: false, ms: 0 };
  }
  const final = binaryPath(spec, env);
  if (verified(final, log, spec.label, spec.smokeArgs)) return { path: final, built: false, ms: Date.now() - started };

  const goBin = findGo(env);
  if (!goBin) {
    throw new StackError(
      `\`go\` not found: building ${spec.label} needs Go >= 1.24 — install it from https://go.dev/dl/ (or set ${spec.overrideEnv} to a prebuilt ${spec.name} binary)`,
    );
  }
  const bins = binDir(env);
  const key = `${spec.name}-${spec.version}`;
  return withLock(path.join(bins, `.${key}.lock`), log, async () => {
    if (verified(final, undefined, spec.label, spec.smokeArgs)) return { path: final, built: false, ms: Date.now() - started };
    // Holding the lock, any temp dir for this binary is left over from a killed build.
    for (const e of fs.readdirSync(bins)) {
      if (e.startsWith(`.tmp-${key}-`)) fs.rmSync(path.join(bins, e), { recursive: true, force: true });
    }
    const tmp = fs.mkdtempSync(path.join(bins, `.tmp-${key}-`));
    const logFile = path.join(bins, `${key}.build.log`);
    fs.writeFileSync(logFile, '');
    log(`building ${spec.label} with ${goBin} (first run on this machine; takes minutes; log: ${logFile})`);
    try {
      const built = await spec.build({ go: goBin, tmp, env, logFile });
      const problem = smokeTest(built, spec.smokeArgs);
      if (problem) throw new StackError(`freshly built ${spec.label} does not run: ${problem} (log: ${logFile})`);
      fs.mkdirSync(path.dirname(final), { recursive: true });
      // Same filesystem as the cache, so the rename is atomic: readers see no binary or a whole one.
      fs.renameSync(built, final);
      const st = fs.statSync(final);
      fs.writeFileSync(`${final}.verified`, `${st.size}:${st.mtimeMs}`);
      const ms = Date.now() - started;
      log(`built ${spec.label} in ${(ms / 1000).toFixed(1)}s -> ${final}`);
      return { path: final, built: true, ms };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}
