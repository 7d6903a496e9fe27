import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The domain's modules import one another without a circle, type-only imports and re-exports
 * included: a rule lower down never needs one higher up (docs/architecture.md, "Layers"). Read from
 * the sources, as `madge --circular` reads them.
 */

const SRC = resolve(__dirname, '../src');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The modules of this package `file` imports or re-exports from (relative specifiers only). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)].map((match) => match[1]!);
  return specifiers.map((specifier) => {
    const base = resolve(dirname(file), specifier);
    const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => known.has(candidate));
    if (!found) throw new Error(`${relative(SRC, file)}: cannot resolve ${specifier}`);
    return found;
  });
}

/** Some circle of the graph, as the modules along it, or undefined when there is none. */
function circleOf(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (module: string): string[] | undefined => {
    const at = path.indexOf(module);
    if (at >= 0) return [...path.slice(at), module];
    if (done.has(module)) return undefined;
    path.push(module);
    for (const next of graph.get(module) ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    path.pop();
    done.add(module);
    return undefined;
  };
  for (const module of graph.keys()) {
    const circle = visit(module);
    if (circle) return circle;
  }
  return undefined;
}

describe('libs/domain imports', () => {
  const files = modules(SRC);
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file, known)]));

  it('are read: the graph has the modules and the edges it should', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(graph.get(join(SRC, 'query/parse.ts'))).toContain(join(SRC, 'query/operators.ts'));
    // A type-only import counts as much as any other.
    expect(graph.get(join(SRC, 'values/descriptor.ts'))).toContain(join(SRC, 'query/operators.ts'));
  });

  it('form no circle', () => {
    expect(circleOf(graph)?.map((file) => relative(SRC, file))).toBeUndefined();
  });

  it('a circle would be found', () => {
    expect(circleOf(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(circleOf(new Map([['a', ['b']], ['b', ['c']], ['c', []]]))).toBeUndefined();
  });
});
