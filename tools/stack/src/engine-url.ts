import { StackError } from './errors';
import type { Log } from './log';
import { mongoPingOutcome } from './mongo-ping';
import { STALL_MS } from './progress';
import { waitWhileProgressing, type Attempt } from './wait';

export interface HostPort {
  host: string;
  port: number;
}

/**
 * The servers a MongoDB connection string names, as far as a plain ping can reach them; or why it
 * cannot: a DNS seed list (`mongodb+srv`), TLS, a Unix socket. Credentials are never part of the
 * answer (it is printed). Per the connection string spec, `/`, `?` and `@` in credentials are
 * percent-encoded, so the first `/` or `?` ends the hosts and the last `@` before it the credentials.
 */
export function pingTargets(url: string): { hosts: HostPort[] } | { unpingable: string } {
  if (/^mongodb\+srv:\/\//i.test(url)) return { unpingable: 'a DNS seed list (mongodb+srv)' };
  const scheme = /^mongodb:\/\//i.exec(url);
  if (!scheme) return { unpingable: 'not a mongodb:// URL' };
  const rest = url.slice(scheme[0].length);
  const end = rest.search(/[/?]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const query = rest.includes('?') ? rest.slice(rest.indexOf('?') + 1) : '';
  for (const [name, value] of new URLSearchParams(query)) {
    if (/^(tls|ssl)$/i.test(name) && value.toLowerCase() === 'true') return { unpingable: 'TLS' };
  }
  const hosts: HostPort[] = [];
  for (const entry of authority.slice(authority.lastIndexOf('@') + 1).split(',')) {
    if (/%2f|\.sock$/i.test(entry)) return { unpingable: 'a Unix socket' };
    const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(entry);
    if (!m) return { unpingable: `no host in "${entry}"` };
    hosts.push({ host: m[1] ?? m[2]!, port: m[3] ? Number(m[3]) : 27017 });
  }
  return { hosts };
}

function named(hosts: HostPort[]): string {
  return hosts.map((h) => (h.host.includes(':') ? `[${h.host}]:${h.port}` : `${h.host}:${h.port}`)).join(',');
}

/**
 * Before `entia-admin migrate`, a short-lived command: waits until a server of MONGODB_URL answers
 * a ping (any reply: one asking for credentials answers too, and migrate then says what is wrong).
 * A server that takes connections is waited for however slow; one that has taken none for
 * `stallMs` is a failure naming the address. A URL a plain ping cannot reach is left to migrate,
 * which waits on its own (ADMIN_WAIT_MS).
 */
export async function waitForMongoUrl(url: string, opts: { log: Log; signal?: AbortSignal; stallMs?: number }): Promise<void> {
  const targets = pingTargets(url);
  if ('unpingable' in targets) {
    opts.log(`mongodb: using MONGODB_URL from the environment (${targets.unpingable}: not pinged here; migrate waits for it)`);
    return;
  }
  const where = `MONGODB_URL (${named(targets.hosts)})`;
  const attempt = async (timeoutMs: number): Promise<Attempt> => {
    const outcomes = await Promise.all(targets.hosts.map((h) => mongoPingOutcome(h.port, h.host, timeoutMs)));
    if (outcomes.some((o) => o.kind === 'ok' || o.kind === 'failed')) return { done: true };
    const codes = [...new Set(outcomes.flatMap((o) => (o.kind === 'unreachable' ? [o.code] : [])))];
    return codes.length < outcomes.length
      ? { done: false, accepts: true, reason: 'it takes connections but has not answered a ping yet' }
      : { done: false, accepts: false, reason: `it does not take connections (${codes.join(', ')})` };
  };
  const outcome = await waitWhileProgressing({ what: `${where} to answer a ping`, attempt, pollMs: 250, ...opts });
  if (outcome.kind === 'answered') {
    opts.log(`mongodb: using ${where} from the environment; it answered a ping in ${(outcome.ms / 1000).toFixed(1)}s`);
    return;
  }
  // Not `dead`: there is no process of ours to see, so only a stall ends this wait.
  const stalledMs = opts.stallMs ?? STALL_MS;
  throw new StackError(
    `${where} has not taken a connection for ${stalledMs / 1000}s (${outcome.reason}): start that server, or fix or unset MONGODB_URL`,
  );
}
