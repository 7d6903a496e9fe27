import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

// What the browser tests of the SDK share: the SDK's published build, made when stale, and a page
// server of their own (an origin other than the API's) serving a page and its bundled script.

export const ROOT = join(__dirname, '../../..');
const SDK_DIR = join(ROOT, 'libs/client');
/** What `import '@entia/client'` resolves to through the package's `exports` (`import`). */
export const SDK_BUNDLE = join(SDK_DIR, 'dist/index.mjs');

/** The newest modification time among the files the SDK's build is made from. */
function newestSource(): number {
  const times: number[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else times.push(statSync(path).mtimeMs);
    }
  };
  walk(join(SDK_DIR, 'src'));
  for (const file of ['package.json', 'tsup.config.ts', 'tsconfig.json']) times.push(statSync(join(SDK_DIR, file)).mtimeMs);
  return Math.max(...times);
}

/** The package's build, made now when it is missing or older than its sources. */
export function ensureSdkBuild(): void {
  if (existsSync(SDK_BUNDLE) && statSync(SDK_BUNDLE).mtimeMs >= newestSource()) return;
  const built = spawnSync('npm', ['run', 'build', '-w', '@entia/client'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  if (built.status !== 0 || !existsSync(SDK_BUNDLE)) {
    throw new Error(
      `${relative(ROOT, SDK_BUNDLE)} is missing or older than libs/client/src, and \`npm run build -w @entia/client\` failed ` +
        `(${built.error?.message ?? `exit ${built.status}`}); this test bundles the SDK's published build:\n${built.stdout}\n${built.stderr}`,
    );
  }
}

export interface PageSite {
  origin: string;
  server: Server;
}

export interface PageServerOptions {
  /** How the page's address names 127.0.0.1 (`localhost` where it needs a secure context, as WebAuthn does). */
  host?: 'localhost' | '127.0.0.1';
  /** Where the page is served (a sign-in's return page too); `/` by default. */
  paths?: readonly string[];
}

/** A page and its script at `/<scriptName>`, from a server of their own on 127.0.0.1. */
export async function pageServer(page: Buffer, scriptName: string, script: string, options: PageServerOptions = {}): Promise<PageSite> {
  const { host = '127.0.0.1', paths = ['/'] } = options;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (paths.includes(path)) res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
    else if (path === `/${scriptName}`) res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(script);
    // No icon, and no 404 that would show as a console error.
    else if (path === '/favicon.ico') res.writeHead(204).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://${host}:${(server.address() as AddressInfo).port}`, server };
}

export const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
