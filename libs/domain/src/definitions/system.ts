import { SHARING } from '../rights';
import type { PropertyDefinition } from './definition';

const base = { multilingual: false, search: false, mandatory: false, readonly: false } as const;

const rightList = (name: string): PropertyDefinition => ({ ...base, name, type: 'reference', list: true, writeRight: 'owner' });

/**
 * System properties (SPEC §4): every entity may carry them whatever its type defines. Rules beyond
 * these shapes (who a reference may point at, `_type` fixed after create, credentials only on
 * persons) are in write.ts, credentials.ts and references.ts.
 */
export const SYSTEM_DEFINITIONS: ReadonlyMap<string, PropertyDefinition> = new Map(
  [
    { ...base, name: '_type', type: 'reference', list: false, mandatory: true, writeRight: 'owner' },
    { ...base, name: '_parent', type: 'reference', list: true, writeRight: 'editor' },
    { ...base, name: '_created', type: 'datetime', list: false, readonly: true, writeRight: 'owner' },
    { ...base, name: '_sharing', type: 'string', list: false, allowed: SHARING, writeRight: 'owner' },
    rightList('_owner'),
    rightList('_editor'),
    rightList('_expander'),
    rightList('_viewer'),
    rightList('_noaccess'),
    { ...base, name: '_inheritrights', type: 'boolean', list: false, writeRight: 'owner' },
    { ...base, name: '_api_key', type: 'string', list: true, writeRight: 'owner', secret: true },
    { ...base, name: '_identity', type: 'string', list: true, writeRight: 'owner' },
    { ...base, name: '_passkey', type: 'string', list: true, writeRight: 'owner' },
    // Computed from the others by `materialise` (COMPUTED_PROPERTIES): never written by a client.
    { ...base, name: '_changed', type: 'datetime', list: false, readonly: true, writeRight: 'owner' },
    { ...base, name: '_reference', type: 'reference', list: true, readonly: true, writeRight: 'owner' },
  ].map((definition) => [definition.name, definition as PropertyDefinition]),
);

/**
 * System properties the server keeps from an entity's other values (`derived/computed.ts`):
 * `_changed` (when and by whom it last changed, SPEC §7a) and `_reference` (every reference it
 * makes). Never written by a client, and never a change of their own: history, the change
 * feed and the entities that read this one see the changes they come from, not them.
 */
export const COMPUTED_PROPERTIES: ReadonlySet<string> = new Set(['_changed', '_reference']);

export function isComputedProperty(name: string): boolean {
  return COMPUTED_PROPERTIES.has(name);
}

export function isSystemProperty(name: string): boolean {
  return name.startsWith('_');
}

/** What clients see in place of a secret value's `string`. */
export const SECRET_SHOWN = '***';

/**
 * Whether `name`'s values are secret (its system definition says `secret`): the one rule every
 * read, query, index and formula asks. User definitions can never be secret: their names cannot
 * start with `_`, so a user cannot declare (or shadow) a secret property.
 */
export function isSecretProperty(name: string): boolean {
  return SYSTEM_DEFINITIONS.get(name)?.secret === true;
}
