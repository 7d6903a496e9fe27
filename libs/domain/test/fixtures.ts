import {
  DEFAULT_LIMITS,
  DomainError,
  type Caller,
  type Entity,
  type PropertyDefinition,
  type Properties,
  type Value,
  type ValueType,
  type WriteContext,
} from '@entia/domain';

/** A fixed clock: every value written in a test carries this time. */
export const NOW = '2024-05-01T10:00:00.000Z';
export const EARLIER = '2024-01-01T00:00:00.000Z';

/** 24-hex ids from a counter, so that tests can predict them. */
export const hexId = (n: number) => n.toString(16).padStart(24, '0');

/** A deterministic id source, starting far from the fixed ids below. */
export function counter(start = 0x1000): () => string {
  let n = start;
  return () => hexId(n++);
}

// Persons that hold one right each on the entities built by `entityWith`, and one that holds none.
export const OWNER = hexId(0xa1);
export const EDITOR = hexId(0xa2);
export const EXPANDER = hexId(0xa3);
export const VIEWER = hexId(0xa4);
export const STRANGER = hexId(0xa5);
export const ENTITY = hexId(0xe1);
export const TYPE = hexId(0xe2);

export const caller = (personId: string): Required<Caller> => ({ personId });

let valueIds = 0x5000;
/** A stored value of `type` with `data`, written earlier by the owner. */
export function val(type: string, data: Partial<Value> = {}, _id = hexId(valueIds++)): Value {
  return { _id, type, ...data, created: { at: EARLIER, by: OWNER } };
}

export interface Shape {
  owner?: string[];
  editor?: string[];
  expander?: string[];
  viewer?: string[];
  sharing?: string;
  type?: string;
  extra?: Properties;
}

/** Properties of an entity with the given right lists (default: OWNER, EDITOR, EXPANDER, VIEWER each hold one). */
export function propertiesWith(shape: Shape = {}): Properties {
  const lists = {
    _owner: shape.owner ?? [OWNER],
    _editor: shape.editor ?? [EDITOR],
    _expander: shape.expander ?? [EXPANDER],
    _viewer: shape.viewer ?? [VIEWER],
  };
  const properties: Properties = { _type: [val('_type', { reference: shape.type ?? TYPE })] };
  for (const [name, ids] of Object.entries(lists)) {
    if (ids.length > 0) properties[name] = ids.map((reference) => val(name, { reference }));
  }
  if (shape.sharing !== undefined) properties._sharing = [val('_sharing', { string: shape.sharing })];
  return { ...properties, ...shape.extra };
}

export const entityWith = (shape: Shape = {}, _id = ENTITY): Entity => ({ _id, properties: propertiesWith(shape) });

/** A user property definition with the usual defaults (not a list, not multilingual, editor to write). */
export function def(name: string, type: ValueType, more: Partial<PropertyDefinition> = {}): PropertyDefinition {
  return { name, type, list: false, multilingual: false, search: false, mandatory: false, readonly: false, writeRight: 'editor', ...more };
}

/** The definitions of the test type: one of each data type, plus list and multilingual variants. */
export const DEFINITIONS: ReadonlyMap<string, PropertyDefinition> = new Map(
  [
    def('name', 'string'),
    def('tags', 'string', { list: true }),
    def('title', 'string', { multilingual: true }),
    def('notes', 'text', { list: true, multilingual: true }),
    def('count', 'number'),
    def('done', 'boolean'),
    def('born', 'date'),
    def('seen', 'datetime'),
    def('friend', 'reference', { list: true }),
    def('photo', 'file', { list: true }),
    def('total', 'number', { formula: 'count 2 MULTIPLY' }),
    def('code', 'string', { readonly: true }),
  ].map((d) => [d.name, d]),
);

/** A write context for `personId`: fixed clock, counter ids, predictable API keys. */
export function context(personId: string, more: Partial<WriteContext> = {}): WriteContext {
  let keys = 0;
  return {
    caller: caller(personId),
    now: NOW,
    newId: counter(),
    definitions: DEFINITIONS,
    limits: DEFAULT_LIMITS,
    isPerson: false,
    newApiKey: () => {
      keys++;
      return { plaintext: `plain-key-${keys}`, hash: `hash-of-key-${keys}` };
    },
    ...more,
  };
}

/** Runs `action` and returns the DomainError it throws (failing the test when it does not throw). */
export function thrown(action: () => unknown): DomainError {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}
