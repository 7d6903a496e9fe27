import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDockerfile } from '../src';

// One Node.js line: `.node-version` names the version; tests and CI run on that binary (tools/stack
// re-executes on it), the images are built FROM it, and the manifests promise and type-check
// against that same major. An upgrade that misses one of them fails here, not in production.
const repo = join(__dirname, '..', '..', '..');
const pinned = readFileSync(join(repo, '.node-version'), 'utf8').trim();
const major = pinned.split('.')[0];

interface Manifest {
  engines?: { node?: string };
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}
const rootPackage = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, Manifest & { version?: string }>;
};

test('.node-version names one exact release', () => {
  expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
});

test('the images are built on exactly that release', () => {
  const parsed = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
  expect(parsed.globalArgs.NODE_VERSION).toBe(pinned);
  expect(parsed.stages[0]!.from).toContain('${NODE_VERSION}');
});

test('the engines field promises that major, in package.json and the lockfile', () => {
  expect(rootPackage.engines?.node).toBe(`^${major}`);
  expect(lock.packages['']!.engines?.node).toBe(`^${major}`);
});

test("@types/node describes that major's API, pinned exactly, as installed", () => {
  const declared = rootPackage.devDependencies?.['@types/node'];
  expect(declared).toMatch(new RegExp(`^${major}\\.\\d+\\.\\d+$`));
  expect(lock.packages['']!.devDependencies?.['@types/node']).toBe(declared);
  expect(lock.packages['node_modules/@types/node']!.version).toBe(declared);
});
