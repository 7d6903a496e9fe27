/**
 * A V8 CPU profile (`--cpu-prof`, a .cpuprofile file) summed by self time: per function and per
 * package (node_modules/<package>, Node's own modules, this repository's files), as Markdown.
 *
 *   node bench/dist/load/profile.js <file.cpuprofile> [top]     (top: rows per table, default 25)
 */
import { readFileSync } from 'node:fs';

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds from the previous sample (the first: from startTime). */
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  /** Self time, ms. */
  ms: number;
}

export interface ProfileSummary {
  /** Sampled time, ms, idle included. */
  totalMs: number;
  idleMs: number;
  functions: ProfileEntry[];
  packages: ProfileEntry[];
}

const MODULES = '/node_modules/';

/** A script's path as the tables name it: inside node_modules from the package on, this repository's from its root, Node's as its URL. */
function locationOf(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf(MODULES);
  if (modules >= 0) return path.slice(modules + MODULES.length);
  return /(?:^|\/)((?:libs|services|tools|bench)\/.+)$/.exec(path)?.[1] ?? path;
}

/** Where a script comes from: `express`, `@scope/name`, `node:http`, `services/api/dist/app.js`, or `(native)` and V8's own pseudo-frames. */
export function packageOf(url: string, functionName: string): string {
  if (url === '') return /^\(.*\)$/.test(functionName) ? functionName : '(native)';
  const location = locationOf(url);
  if (url.startsWith('node:')) return `node:${url.slice(5).replace(/^internal\//, '').split('/')[0]!.replace(/\.js$/, '')}`;
  if (!url.includes(MODULES)) return location;
  const [first, second] = location.split('/');
  return first!.startsWith('@') ? `${first}/${second}` : first!;
}

function functionOf(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  return frame.url === '' ? name : `${name} (${locationOf(frame.url)}:${frame.lineNumber + 1})`;
}

const add = (totals: Map<string, number>, key: string, ms: number) => totals.set(key, (totals.get(key) ?? 0) + ms);
const top = (totals: Map<string, number>, count: number): ProfileEntry[] =>
  [...totals]
    .sort(([, a], [, b]) => b - a)
    .slice(0, count)
    .map(([name, ms]) => ({ name, ms: Math.round(ms * 10) / 10 }));

/** Each sample lasts until the next one (the last until the profile's end), as DevTools counts it. */
export function summariseProfile(profile: CpuProfile, count = 25): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let at = profile.startTime;
  const times = profile.timeDeltas.map((delta) => (at += delta));
  let idleMs = 0;
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = Math.max(0, (times[i + 1] ?? profile.endTime) - times[i]!) / 1000;
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    totalMs += ms;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    add(byFunction, functionOf(frame), ms);
    add(byPackage, packageOf(frame.url, frame.functionName), ms);
  });
  return { totalMs: Math.round(totalMs), idleMs: Math.round(idleMs), functions: top(byFunction, count), packages: top(byPackage, count) };
}

export function renderProfileMarkdown(summary: ProfileSummary, title: string): string {
  const busy = summary.totalMs - summary.idleMs;
  const share = (ms: number) => (busy > 0 ? `${((ms / busy) * 100).toFixed(1)} %` : '–');
  const table = (heading: string, entries: ProfileEntry[]) => [
    `| ${heading} | self ms | share |`,
    '|---|---:|---:|',
    ...entries.map((e) => `| ${e.name.replace(/\|/g, '\\|')} | ${e.ms} | ${share(e.ms)} |`),
  ];
  return [
    `## ${title}`,
    '',
    `Sampled ${summary.totalMs} ms, ${summary.idleMs} ms of it idle; shares are of the ${busy} ms busy. Self time: in the function itself, not in what it called.`,
    '',
    ...table('package', summary.packages),
    '',
    ...table('function', summary.functions),
  ].join('\n');
}

if (require.main === module) {
  const [file, count] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/dist/load/profile.js <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const summary = summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, count ? Number(count) : 25);
  process.stdout.write(`${renderProfileMarkdown(summary, `CPU profile: ${file}`)}\n`);
}
