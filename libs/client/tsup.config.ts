import { defineConfig } from 'tsup';

// The package: ESM and CommonJS bundles of the entry points with bundled declarations for each
// (`.d.mts`, `.d.ts`), its dependencies (eventsource-parser, @simplewebauthn/browser) inlined so that
// installing the SDK installs nothing else. `tsc -b` only type-checks this package (declarations into .tsc/, for the tests).
export default defineConfig([
  {
    entry: { index: 'src/index.ts', node: 'src/node.ts' },
    format: ['esm', 'cjs'],
    outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.cjs' }),
    target: 'es2022',
    platform: 'neutral',
    noExternal: ['eventsource-parser', '@simplewebauthn/browser'],
    external: [/^node:/],
    dts: { only: false, compilerOptions: { composite: false, incremental: false, declarationMap: false } },
    sourcemap: false,
    clean: ['*.mjs', '*.cjs', '*.d.ts', '*.d.mts'],
    splitting: false,
    treeshake: true,
    tsconfig: 'tsconfig.json',
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    target: 'es2022',
    platform: 'node',
    noExternal: ['eventsource-parser', '@simplewebauthn/browser'],
    sourcemap: false,
    clean: false,
    tsconfig: 'tsconfig.json',
  },
]);
