import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What a receiver's answer is read of, at most: its status is all that counts. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The exceptions of WEBHOOK_ALLOWED_HOSTS: host names (any address they resolve to is allowed)
 * and IP addresses or CIDR ranges (those addresses are allowed, whatever name led to them).
 */
export interface AllowedHosts {
  names: ReadonlySet<string>;
  ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/** Parses WEBHOOK_ALLOWED_HOSTS (`none`, or comma-separated names, addresses and CIDRs); throws on a malformed range. */
export function parseAllowedHosts(text: string): AllowedHosts {
  const names = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const entries = text.trim().toLowerCase() === 'none' ? [] : text.split(',').map((entry) => bare(entry.trim())).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (ipaddr.isValid(entry) && isIP(entry) !== 0) {
      const address = ipaddr.process(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`WEBHOOK_ALLOWED_HOSTS: "${entry}" is not a CIDR range`);
      ranges.push(ipaddr.parseCIDR(entry));
    } else {
      names.add(entry);
    }
  }
  return { names, ranges };
}

/**
 * Why a webhook may not connect to `address` (undefined: it may): every address but ordinary
 * public unicast is refused — private, loopback, link-local, unique-local, unspecified, multicast,
 * broadcast, carrier-grade NAT, reserved, and the IPv6 forms that embed an IPv4 address (mapped,
 * NAT64, 6to4, Teredo) — unless a range of `allowed` holds it. An IPv4-mapped IPv6 address is
 * judged as the IPv4 address it is.
 */
export function refusedAddress(address: string, allowed: AllowedHosts): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  if (allowed.ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits))) return undefined;
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return `${address} is a ${range} address, refused (WEBHOOK_ALLOWED_HOSTS does not name it)`;
}

/** A delivery that did not reach a receiver's answer: `refused` when the address policy stopped it (not worth retrying). */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';

  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/**
 * A DNS lookup that refuses the request when any address the name resolves to is refused, so the
 * address checked is the one connected to (no second resolution a rebinding DNS could answer
 * differently). Node's `net` calls it in place of `dns.lookup`.
 */
function guardedLookup(allowed: AllowedHosts): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refusal = addresses.map(({ address }) => refusedAddress(address, allowed)).find((reason) => reason !== undefined);
      if (refusal) return callback(new OutboundError(`${hostname} resolves to ${refusal}`, true), '', 0);
      if (addresses.length === 0) return callback(new OutboundError(`${hostname} resolves to no address`, false), '', 0);
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export interface OutboundSettings {
  allowed: AllowedHosts;
  timeoutMs: number;
}

/**
 * POSTs `body` to `url` the way a webhook must call out: to an allowed address only (checked
 * after resolution, on the address used), no redirect followed (a 3xx is just the answer), no
 * connection kept, the whole exchange within `timeoutMs`, at most `MAX_RESPONSE_BYTES` of the
 * answer read. Resolves with the status; rejects with an `OutboundError` when there was no answer.
 */
export function post(url: string, body: string, headers: Record<string, string>, settings: OutboundSettings): Promise<{ status: number }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError('the url does not parse', true));
  }
  const host = bare(target.hostname);
  const named = settings.allowed.names.has(host);
  if (!named && isIP(host) !== 0) {
    const refusal = refusedAddress(host, settings.allowed);
    if (refusal) return Promise.reject(new OutboundError(refusal, true));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { status: number } | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const request = client.request(target, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'Entia-Webhooks/1', Connection: 'close' },
      ...(named ? {} : { lookup: guardedLookup(settings.allowed) }),
    });
    const timer = setTimeout(() => {
      finish(new OutboundError(`no answer within ${settings.timeoutMs} ms`, false));
      request.destroy();
    }, settings.timeoutMs);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) {
          finish({ status });
          response.destroy();
        }
      });
      response.on('end', () => finish({ status }));
      response.on('close', () => finish({ status }));
      response.on('error', () => finish({ status }));
    });
    request.on('error', (error) => finish(error instanceof OutboundError ? error : new OutboundError(describe(error), false)));
    request.end(body);
  });
}

/** A socket error as the delivery log shows it: its code and message, nothing else of the request. */
function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
