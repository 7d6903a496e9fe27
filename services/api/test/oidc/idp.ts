import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { stopWithParent } from '@entia/stack';
import { freePort } from '../processes';

export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Defaults to client_secret_post, openid-client's default. */
  token_endpoint_auth_method?: 'client_secret_post' | 'client_secret_basic';
}

export interface Idp {
  issuer: string;
  port: number;
  stop(): Promise<void>;
}

const PROVIDER = join(__dirname, 'provider.mjs');
const READY_TIMEOUT_MS = 20_000;

/**
 * Starts the test OpenID provider (provider.mjs, oidc-provider) as a child process on a free
 * port of 127.0.0.1. It is a process of its own because oidc-provider is ESM-only and jest runs
 * CommonJS. `issuer` lets a test make the provider name another issuer than its own address.
 */
export async function startIdp(options: { issuer?: (port: number) => string; clients: IdpClient[] }): Promise<Idp> {
  const port = await freePort();
  const args = { port, issuer: options.issuer?.(port), clients: options.clients };
  const child = spawn(process.execPath, [PROVIDER, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
  // An interrupted test run must not leave the provider behind.
  stopWithParent(child);
  const exited = once(child, 'exit');

  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  let timer: NodeJS.Timeout | undefined;
  const issuer = await new Promise<string>((resolve, reject) => {
    const fail = (why: string): void => reject(new Error(`OIDC provider ${why}; stderr:\n${stderr}`));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /^ready (\S+)$/m.exec(stdout);
      if (ready) resolve(ready[1]!);
    });
    child.once('error', (error) => fail(`did not start: ${error.message}`));
    exited.then(([code, signal]) => fail(`exited (${code ?? signal}) before it was ready`), () => undefined);
    timer = setTimeout(() => fail(`not ready after ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
  }).catch(async (error: unknown) => {
    child.kill('SIGTERM');
    throw error;
  }).finally(() => clearTimeout(timer));

  return {
    issuer,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const MAX_HOPS = 20;

/**
 * Plays a browser without UI through an authorization request: follows redirects (keeping the
 * provider's cookies, per host) until one goes to `redirectPrefix`, and returns that URL without
 * requesting it. It carries `code`, `state` and `iss`, or `error`.
 */
export async function followToRedirect(authorizationUrl: string, redirectPrefix: string): Promise<URL> {
  const jar = new Map<string, Map<string, string>>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const cookies = jar.get(url.host);
    const response = await fetch(url, {
      redirect: 'manual',
      headers: cookies ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {},
      signal: AbortSignal.timeout(10_000),
    });
    for (const header of response.headers.getSetCookie()) {
      // Only name=value matters here; attributes (path, expiry) are not needed for one flow.
      const [pair = ''] = header.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      const hostJar = jar.get(url.host) ?? jar.set(url.host, new Map()).get(url.host)!;
      // An emptied cookie is how the provider deletes one (e.g. the resume cookie once used).
      if (value) hostJar.set(name, value);
      else hostJar.delete(name);
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      const body = (await response.text()).slice(0, 500);
      throw new Error(`authorization ended at ${url.href} with ${response.status}, not a redirect to ${redirectPrefix}: ${body}`);
    }
    await response.body?.cancel();
    url = new URL(location, url);
    if (url.href.startsWith(redirectPrefix)) return url;
  }
  throw new Error(`no redirect to ${redirectPrefix} after ${MAX_HOPS} hops (last: ${url.href})`);
}
