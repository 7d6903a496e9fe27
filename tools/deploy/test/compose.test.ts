import { ConfigSchema, loadConfig } from '@entia/config';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeConfig, composeSchemaValidator, describeSchemaErrors, findComposeClient, interpolate, readYamlDocument } from '../src';

// docker-compose.yml, checked offline. Always: the Compose Specification's JSON schema, and the
// model (interpolated) against what the services need. Where a Compose client is installed (the
// `docker compose` plugin or `docker-compose`), the model is the one `docker compose config`
// resolves, which needs no Docker engine; otherwise the file's own interpolation is applied here.
const repo = join(__dirname, '..', '..', '..');
const file = join(repo, 'docker-compose.yml');
const JWT_SECRET = 'compose-test-jwt-secret-0123456789abcdef';

// Only what compose needs to find its plugin: no variable of the developer's shell leaks in.
const baseEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
  ...(process.env.DOCKER_CONFIG ? { DOCKER_CONFIG: process.env.DOCKER_CONFIG } : {}),
};
const client = findComposeClient(baseEnv);
const raw = readYamlDocument(file, { version: '1.2' }) as Record<string, unknown>;

interface Service {
  image?: string;
  build?: { context: string; target?: string };
  command?: string[] | string | null;
  entrypoint?: string[] | string | null;
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  ports?: (string | { target: number; published: string | number })[];
  volumes?: (string | { type: string; source: string; target: string })[];
  stop_grace_period?: string;
}
interface Model {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

let dir: string;
let model: Model;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'entia-compose-'));
  writeFileSync(join(dir, 'empty.env'), '');
  if (client) {
    const result = composeConfig(client, file, join(dir, 'empty.env'), { ...baseEnv, JWT_SECRET });
    if (result.status !== 0) throw new Error(`${client.command.join(' ')} config failed: ${result.stderr}`);
    model = result.model as Model;
  } else {
    model = interpolate(raw, { JWT_SECRET }) as unknown as Model;
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const service = (name: string): Service => {
  const found = model.services[name];
  if (!found) throw new Error(`no service ${name}`);
  return found;
};
const environment = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(service(name).environment ?? {}).map(([key, value]) => [key, String(value ?? '')]));
const healthcheck = (name: string): string => {
  const test = service(name).healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : (test ?? '');
};
const seconds = (duration: string | undefined): number =>
  [...(duration ?? '').matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)].reduce(
    (sum, [, n, unit]) => sum + Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'],
    0,
  );
const published = (name: string): [string, number][] =>
  (service(name).ports ?? []).map((port) => {
    if (typeof port !== 'string') return [String(port.published), port.target];
    const parts = port.split(':');
    return [parts.at(-2)!, Number(parts.at(-1))];
  });
const namedVolumes = (name: string): Record<string, string> =>
  Object.fromEntries(
    (service(name).volumes ?? []).map((volume) => {
      if (typeof volume !== 'string') return [volume.target, volume.type === 'volume' ? volume.source : `${volume.type}:${volume.source}`];
      const [source, target] = volume.split(':');
      return [target!, source!];
    }),
  );

describe('docker-compose.yml', () => {
  it('matches the Compose Specification schema', () => {
    const validate = composeSchemaValidator();
    expect(describeSchemaErrors(validate(raw) ? [] : validate.errors)).toEqual([]);
    // The schema is strict: a misspelt key or a bad value fails.
    const broken = { ...raw, services: { ...(raw.services as object), api: { ...service('api'), helthcheck: {} } } };
    expect(validate(broken)).toBe(false);
  });

  (client ? it : it.skip)(`resolves with \`docker compose config\`, and refuses to without JWT_SECRET (${client ? client.version : 'no Compose client here'})`, () => {
    const result = composeConfig(client!, file, join(dir, 'empty.env'), baseEnv);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('JWT_SECRET');
  });

  it('has no default JWT secret: interpolation stops without one', () => {
    expect(() => interpolate(raw, {})).toThrow(/JWT_SECRET/);
  });

  it('interpolates as compose does, for the forms the file uses', () => {
    const env = { SET: 'v', EMPTY: '' };
    expect(interpolate(['$SET', '${SET}', '${SET:-d}', '${EMPTY:-d}', '${EMPTY-d}', '${NONE-d}', '$$SET', '${SET:?e}'], env)).toEqual(['v', 'v', 'v', 'd', '', 'd', '$SET', 'v']);
    expect(() => interpolate('${EMPTY:?say why}', env)).toThrow('EMPTY is missing a value: say why');
    expect(() => interpolate('${SET:+alternative}', env)).toThrow(/unsupported interpolation/);
  });

  (client ? it : it.skip)('reads the services\' environment as `docker compose config` does', () => {
    const ours = interpolate(raw, { JWT_SECRET }) as unknown as Model;
    for (const name of Object.keys(model.services)) {
      const normalise = (env: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, String(v)]));
      expect([name, normalise(ours.services[name]?.environment)]).toEqual([name, normalise(model.services[name]?.environment)]);
    }
  });

  it('runs MongoDB as a replica set of one, initiated by its healthcheck, which the services name', () => {
    const command = service('mongo').command as string[];
    const set = command[command.indexOf('--replSet') + 1];
    expect(set).toMatch(/^\w+$/);
    expect(healthcheck('mongo')).toContain(`rs.initiate({ _id: '${set}', members: [{ _id: 0, host: 'mongo:27017' }] })`);
    expect(healthcheck('mongo')).toContain('isWritablePrimary');
    for (const name of ['api', 'worker']) expect(environment(name).MONGODB_URL).toBe(`mongodb://mongo:27017/?replicaSet=${set}`);
  });

  it('creates the bucket the services use, with the credentials they use', () => {
    const api = environment('api');
    const minio = environment('minio');
    const script = (service('minio-bucket').command as string[]).join(' ');
    expect(script).toContain(`mc mb --ignore-existing entia/${api.S3_BUCKET}`);
    expect(script).toContain('mc alias set entia http://minio:9000');
    expect(environment('minio-bucket')).toEqual({ MINIO_ROOT_USER: minio.MINIO_ROOT_USER, MINIO_ROOT_PASSWORD: minio.MINIO_ROOT_PASSWORD });
    expect([api.S3_ENDPOINT, api.S3_ACCESS_KEY, api.S3_SECRET_KEY]).toEqual(['http://minio:9000', minio.MINIO_ROOT_USER, minio.MINIO_ROOT_PASSWORD]);
  });

  it('starts the API and the worker once MongoDB and Redis are healthy, the bucket exists and migrate has succeeded', () => {
    for (const name of ['api', 'worker']) {
      expect(service(name).depends_on).toEqual({
        mongo: expect.objectContaining({ condition: 'service_healthy' }),
        redis: expect.objectContaining({ condition: 'service_healthy' }),
        'minio-bucket': expect.objectContaining({ condition: 'service_completed_successfully' }),
        migrate: expect.objectContaining({ condition: 'service_completed_successfully' }),
      });
    }
    // Every health-gated dependency has a healthcheck to pass.
    for (const [name, definition] of Object.entries(model.services)) {
      for (const [dependency, { condition }] of Object.entries(definition.depends_on ?? {})) {
        expect([name, dependency, dependency in model.services]).toEqual([name, dependency, true]);
        if (condition === 'service_healthy') expect([dependency, healthcheck(dependency)]).toEqual([dependency, expect.stringMatching(/^CMD/)]);
      }
    }
    expect(healthcheck('redis')).toBe('CMD redis-cli ping');
    expect(healthcheck('minio')).toBe('CMD mc ready local');
  });

  it('keeps the data of MongoDB, Redis and MinIO in declared named volumes', () => {
    expect(namedVolumes('mongo')).toEqual({ '/data/db': 'mongo-data', '/data/configdb': 'mongo-config' });
    expect(namedVolumes('redis')).toEqual({ '/data': 'redis-data' });
    expect(namedVolumes('minio')).toEqual({ '/data': 'minio-data' });
    expect(Object.keys(model.volumes ?? {}).sort()).toEqual(['minio-data', 'mongo-config', 'mongo-data', 'redis-data']);
  });

  it('lets Redis evict nothing, as BullMQ requires', () => {
    expect((service('redis').command as string[]).join(' ')).toContain('--maxmemory-policy noeviction');
  });

  it.each(['api', 'worker'])('builds the %s image from the Dockerfile and runs its own command', (name) => {
    expect(service(name).build).toEqual(expect.objectContaining({ target: name }));
    expect(service(name).command ?? undefined).toBeUndefined();
    expect(service(name).entrypoint ?? undefined).toBeUndefined();
  });

  it('runs `entia-admin migrate` once, from the API image with the API\'s settings, after MongoDB and Redis are healthy', () => {
    const migrate = service('migrate');
    expect([migrate.build, migrate.image]).toEqual([service('api').build, service('api').image]);
    // `command` replaces the image's CMD only: its ENTRYPOINT (tini) stays.
    expect([migrate.command, migrate.entrypoint ?? undefined]).toEqual([['node', 'services/api/dist/cli/admin.js', 'migrate'], undefined]);
    expect(migrate.depends_on).toEqual({ mongo: expect.objectContaining({ condition: 'service_healthy' }), redis: expect.objectContaining({ condition: 'service_healthy' }) });
    expect((migrate as { restart?: string }).restart).toBe('no');
    const shared = ['MONGODB_URL', 'MONGODB_CONTROL_DB', 'REDIS_URL', 'REDIS_PREFIX', 'S3_BUCKET', 'JWT_SECRET'];
    const pick = (env: Record<string, string>) => Object.fromEntries(shared.map((key) => [key, env[key]]));
    expect(pick(environment('migrate'))).toEqual(pick(environment('api')));
    expect(loadConfig(environment('migrate')).NODE_ENV).toBe('production');
  });

  it('publishes only the API port and the storage that signed URLs name: metrics, the worker, MongoDB and Redis stay inside', () => {
    const host = Object.fromEntries(Object.keys(model.services).map((name) => [name, published(name).map(([, target]) => target)]));
    expect(host).toEqual({ mongo: [], redis: [], minio: [9000], 'minio-bucket': [], migrate: [], api: [Number(environment('api').PORT)], worker: [] });
    const metricsPort = Number(environment('api').METRICS_PORT);
    expect(metricsPort).toBeGreaterThan(0);
    expect(metricsPort).not.toBe(Number(environment('api').PORT));
    // MinIO is published because clients PUT and GET the signed URLs, which name S3_ENDPOINT's port.
    expect(new URL(environment('api').S3_ENDPOINT!).port).toBe('9000');
  });

  it('publishes the API on port 3000 and checks it is ready there', () => {
    expect(published('api')).toEqual([['3000', 3000]]);
    expect(environment('api').PORT).toBe('3000');
    expect(healthcheck('api')).toContain('http://127.0.0.1:3000/readyz');
    expect(published('worker')).toEqual([]);
    expect(healthcheck('worker')).toContain(`http://127.0.0.1:${environment('worker').WORKER_PORT}/readyz`);
  });

  it.each(['api', 'worker'])('gives the %s a configuration the services accept, naming only real settings', (name) => {
    const env = environment(name);
    expect(Object.keys(env).filter((key) => !(key in ConfigSchema.properties))).toEqual([]);
    const config = loadConfig(env);
    expect(config.NODE_ENV).toBe('production');
    expect(config.JWT_SECRET).toBe(JWT_SECRET);
  });

  it('shares MongoDB, Redis and its prefix, the bucket and the JWT secret between the API and the worker', () => {
    const shared = ['MONGODB_URL', 'MONGODB_CONTROL_DB', 'REDIS_URL', 'REDIS_PREFIX', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION', 'JWT_SECRET'];
    const pick = (env: Record<string, string>) => Object.fromEntries(shared.map((key) => [key, env[key]]));
    expect(pick(environment('worker'))).toEqual(pick(environment('api')));
    expect(Object.values(pick(environment('api'))).every(Boolean)).toBe(true);
  });

  it.each(['api', 'worker'])('stops the %s only after its shutdown grace period (SHUTDOWN_TIMEOUT_MS)', (name) => {
    const grace = seconds(service(name).stop_grace_period);
    expect(grace).toBeGreaterThan(Number(environment(name).SHUTDOWN_TIMEOUT_MS) / 1000);
  });
});
