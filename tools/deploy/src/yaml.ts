import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

export interface YamlOptions {
  /**
   * `1.1` reads scalars as Kubernetes does (its YAML decoder takes `yes`, `on`, … for booleans), so a
   * value the API server would refuse fails the schema here too. Compose files are YAML 1.2.
   */
  version: '1.1' | '1.2';
}

/** Every document of a YAML text as plain data (empty documents dropped); throws on any YAML error. */
export function parseYamlDocuments(text: string, options: YamlOptions, source = 'YAML'): unknown[] {
  const documents = parseAllDocuments(text, { version: options.version, merge: true, uniqueKeys: true });
  const list = Array.isArray(documents) ? documents : [];
  for (const document of list) {
    const problem = document.errors[0] ?? document.warnings[0];
    if (problem) throw new Error(`${source}: ${problem.message}`);
  }
  return list.map((document) => document.toJS({ maxAliasCount: 50 }) as unknown).filter((data) => data !== null && data !== undefined);
}

/** Every document of a YAML file as plain data (empty documents dropped); throws on any YAML error. */
export function readYamlDocuments(file: string, options: YamlOptions): unknown[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), options, file);
}

/** The one document of a YAML file. */
export function readYamlDocument(file: string, options: YamlOptions): unknown {
  const documents = readYamlDocuments(file, options);
  if (documents.length !== 1) throw new Error(`${file}: expected one YAML document, found ${documents.length}`);
  return documents[0];
}
