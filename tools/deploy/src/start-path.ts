import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The commands `npm start` runs for the two services, read from tools/stack/src/app.ts (the start
 * path): each main is started as `node <main>` from the repository root. Throws when the source no
 * longer has that shape, so a change there cannot pass the image check unnoticed.
 */
export function startCommands(repo: string): { api: string[]; worker: string[] } {
  const file = join(repo, 'tools/stack/src/app.ts');
  const source = readFileSync(file, 'utf8');
  const mains = /const mains = \{([^}]*)\}/.exec(source)?.[1];
  if (!mains) throw new Error(`${file}: no \`const mains = { … }\``);
  const entries = Object.fromEntries([...mains.matchAll(/(\w+):\s*'([^']+)'/g)].map(([, key, value]) => [key!, value!]));
  if (!/spawn\(process\.execPath, \[main(, \.\.\.args)?\],\s*\{\s*cwd,/.test(source)) {
    throw new Error(`${file}: services are no longer started as \`spawn(process.execPath, [main], { cwd, … })\``);
  }
  if (!entries.api || !entries.worker) throw new Error(`${file}: mains lacks api or worker`);
  return { api: ['node', entries.api], worker: ['node', entries.worker] };
}
