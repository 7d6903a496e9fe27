import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { contextCopies, copiesFrom, effective, execForm, healthcheckCommand, parseDockerfile, stageChain, startCommands } from '../src';

// The Dockerfile read as Docker reads it (dockerfile-ast), checked against what the repository says:
// the start path's commands, the workspace packages, the services' dependencies.
const repo = join(__dirname, '..', '..', '..');
const parsed = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
const rootPackage = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { workspaces: string[]; engines: { node: string } };

/** Workspace package directories, from the root package.json's `dir/*` globs. */
function workspaceDirs(): string[] {
  return rootPackage.workspaces.flatMap((pattern) => {
    const parent = pattern.replace(/\/\*$/, '');
    return readdirSync(join(repo, parent))
      .map((name) => `${parent}/${name}`)
      .filter((dir) => existsSync(join(repo, dir, 'package.json')));
  });
}

function manifest(dir: string): { name: string; dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8'));
}

/** A service's own directory and those of the workspace packages it depends on, transitively. */
function workspaceClosure(dir: string): string[] {
  const byName = new Map(workspaceDirs().map((d) => [manifest(d).name, d]));
  const seen = new Set<string>();
  const visit = (d: string) => {
    if (seen.has(d)) return;
    seen.add(d);
    for (const dep of Object.keys(manifest(d).dependencies ?? {})) if (byName.has(dep)) visit(byName.get(dep)!);
  };
  visit(dir);
  return [...seen].sort();
}

function runs(stage: string): string[] {
  return parsed.stages.find((s) => s.name === stage)!.instructions.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
}

describe('Dockerfile', () => {
  const start = startCommands(repo);

  it.each([
    ['api', start.api],
    ['worker', start.worker],
  ])('the %s image runs exactly the start path command, under tini', (target, command) => {
    expect(command).toEqual(['node', `services/${target}/dist/main.js`]);
    expect(execForm(effective(parsed, target, 'CMD'))).toEqual(command);
    expect(execForm(effective(parsed, target, 'ENTRYPOINT'))).toEqual(['/usr/bin/tini', '--']);
    expect(existsSync(join(repo, 'services', target, 'src', 'main.ts'))).toBe(true);
  });

  it.each([
    ['api', 'PORT', '3000'],
    ['worker', 'WORKER_PORT', '3001'],
  ])('the %s image runs as a non-root user, exposes %s and checks /healthz on it', (target, variable, port) => {
    const user = effective(parsed, target, 'USER')?.getArgumentsContent();
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user!.split(':')[0]);
    expect(effective(parsed, target, 'EXPOSE')?.getArgumentsContent()).toBe(port);
    const check = healthcheckCommand(effective(parsed, target, 'HEALTHCHECK'));
    expect(check?.[0]).toBe('node');
    expect(check?.join(' ')).toContain(`process.env.${variable}||${port}`);
    expect(check?.join(' ')).toContain('/healthz');
  });

  it('builds on a Node LTS line (its agreement with .node-version: node-line.test.ts)', () => {
    const base = parsed.stages[0]!;
    expect(base.from).toMatch(/^node:\$\{NODE_VERSION\}-[a-z]+-slim$/);
    const major = Number(/^(\d+)\./.exec(parsed.globalArgs.NODE_VERSION ?? '')?.[1]);
    expect(major % 2).toBe(0); // even lines are the LTS ones
  });

  it('builds as CI does (npm install, npm run build), and installs only production dependencies for the images', () => {
    expect(runs('build')).toEqual(['npm install', 'npm run build']);
    expect(runs('prod-deps')).toEqual(['npm install --omit=dev --workspace=@entia/api --workspace=@entia/worker']);
    expect(parsed.stages.flatMap((s) => runs(s.name)).join('\n')).not.toMatch(/npm ci\b/);
    // The images descend from `runtime`, which starts from `base`: nothing of `build` but the dist folders.
    for (const target of ['api', 'worker']) {
      expect(stageChain(parsed, target).map((s) => s.name)).toEqual([target, 'runtime', 'base']);
    }
  });

  it('copies the npm manifest of every workspace package before installing', () => {
    const copied = new Set(contextCopies(parsed));
    for (const dir of workspaceDirs()) expect([dir, copied.has(`${dir}/package.json`)]).toEqual([dir, true]);
  });

  it('puts the compiled code of every workspace package the services depend on into the images', () => {
    const runtime = parsed.stages.find((s) => s.name === 'runtime')!;
    const fromBuild = copiesFrom(runtime, 'build');
    // …and the production dependencies, with the manifests the workspace links point at.
    expect(copiesFrom(runtime, 'prod-deps')).toEqual([['/app', './']]);
    const needed = [...new Set([...workspaceClosure('services/api'), ...workspaceClosure('services/worker')])].sort();
    expect(needed).toEqual(expect.arrayContaining(['libs/config', 'services/api', 'services/worker']));
    expect(fromBuild.sort()).toEqual(needed.map((dir) => [`/app/${dir}/dist`, `${dir}/dist`]));
  });

  it('takes from the build context only what exists and .dockerignore lets through', () => {
    const ignore = readFileSync(join(repo, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    // A whitelist: everything is excluded, then the sources are named one by one.
    expect(ignore[0]).toBe('*');
    const allowed = ignore.filter((line) => line.startsWith('!')).map((line) => line.slice(1));
    for (const source of contextCopies(parsed)) {
      expect([source, existsSync(join(repo, source))]).toEqual([source, true]);
      expect([source, allowed.some((entry) => source === entry || source.startsWith(`${entry}/`))]).toEqual([source, true]);
    }
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
  });
});
