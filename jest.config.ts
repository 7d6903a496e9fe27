/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// One jest project per workspace package. Tests import sibling packages by name; the mapper
// points those names at their TypeScript sources so a test run never depends on stale `dist/`.
const packages = [
  'libs/domain',
  'libs/config',
  'libs/store',
  'libs/files',
  'libs/jobs',
  'libs/health',
  'libs/telemetry',
  'libs/entities',
  'libs/client',
  'services/api',
  'services/worker',
  'tools/stack',
  'tools/deploy',
  // The benchmarks' pure parts (bench/test): what they count and how they sum a profile.
  'bench',
];

const moduleNameMapper = {
  '^@entia/(domain|config|store|files|jobs|health|telemetry|entities|client)$': '<rootDir>/libs/$1/src',
  '^@entia/(api|worker)$': '<rootDir>/services/$1/src',
  '^@entia/stack$': '<rootDir>/tools/stack/src',
};

// The SDK's tests against the real API (and its test stack) are a project of their own, so
// `--selectProjects libs/client` runs the SDK's unit tests alone; they start the API through
// services/api/test's helpers (support.ts, tenant.ts), imported by path.
const SDK_INTEGRATION = 'libs/client/test/integration';

const project = (displayName: string, testMatch: string, testPathIgnorePatterns: string[] = []) => ({
  displayName,
  rootDir: __dirname,
  testMatch: [testMatch],
  testPathIgnorePatterns: ['/node_modules/', ...testPathIgnorePatterns],
  testEnvironment: 'node',
  transform: { '^.+\\.(ts|js|mjs)$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  // ESM-only packages the API imports (openid-client and what it is built on): jest runs
  // CommonJS, so swc turns them into it like our own sources.
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'],
  moduleNameMapper,
});

const config: Config = {
  projects: [
    ...packages.map((dir) => project(dir, `<rootDir>/${dir}/test/**/*.test.ts`, dir === 'libs/client' ? [`/${SDK_INTEGRATION}/`] : [])),
    project(SDK_INTEGRATION, `<rootDir>/${SDK_INTEGRATION}/**/*.test.ts`),
  ],
  testTimeout: 30_000,
  // On two cores jest runs the files in its own process: one leaked handle (a client a failed
  // beforeAll never closed) would keep it alive after the report, and CI would wait out its limit
  // instead of failing. The failure that leaked it is in the report already.
  forceExit: true,
};

export default config;
