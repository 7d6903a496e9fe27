import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// The application layer knows no storage engine (docs/architecture.md, "Layers"): documents,
// collections and driver errors are libs/store's. This fails when a source of libs/entities
// imports the MongoDB driver or its BSON library, or the package depends on them again.
const ROOT = join(__dirname, '..');
const DRIVER = /^(mongodb|bson)(\/|$)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|mts|cts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a file names: static and dynamic imports, re-exports, `require`, `import x = require(…)`. */
function specifiers(path: string): string[] {
  return ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles.map((file) => file.fileName);
}

describe('libs/entities and the MongoDB driver', () => {
  const files = sources(join(ROOT, 'src'));

  it('reads the sources it checks', () => {
    expect(files.length).toBeGreaterThan(20);
    // The scan sees each kind of import it looks for (checked on text, not on the sources).
    const seen = ts.preProcessFile("import { a } from 'mongodb';\nexport * from 'bson';\nconst c = require('mongodb/lib/x');\nvoid import('mongodb');", true, true);
    expect(seen.importedFiles.map((file) => file.fileName).filter((name) => DRIVER.test(name))).toHaveLength(4);
  });

  it('no source imports mongodb or bson', () => {
    const offending = files.flatMap((path) => specifiers(path).filter((name) => DRIVER.test(name)).map((name) => `${relative(ROOT, path)}: ${name}`));
    expect(offending).toEqual([]);
  });

  it('the package does not depend on them (only its tests may, to look into a real store)', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      expect(Object.keys(manifest[field] ?? {}).filter((name) => DRIVER.test(name))).toEqual([]);
    }
  });
});
