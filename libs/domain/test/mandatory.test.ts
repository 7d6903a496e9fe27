import { applyWrite, removeValue, type PropertyDefinition, type ValueInput } from '@entia/domain';
import { DEFINITIONS, EDITOR, OWNER, TYPE, caller, context, def, entityWith, hexId, thrown, val } from './fixtures';

/** `mandatory` (SPEC §5; docs/decisions.md): given on create, its last value never deleted, not retroactive. */

const withMandatory = (...more: PropertyDefinition[]): ReadonlyMap<string, PropertyDefinition> =>
  new Map([...DEFINITIONS, ...more.map((d) => [d.name, d] as const)]);

const TITLE = def('isbn', 'string', { mandatory: true });
const COMPUTED = def('score', 'number', { mandatory: true, formula: '1' });
const LISTED = def('authors', 'string', { mandatory: true, list: true });
const definitions = withMandatory(TITLE, COMPUTED, LISTED);

const create = (items: ValueInput[]) => applyWrite(undefined, [{ type: '_type', reference: TYPE }, ...items], context(OWNER, { definitions }));

describe('mandatory on create', () => {
  it.each<[string, ValueInput[], string[]]>([
    ['every mandatory property given', [{ type: 'isbn', string: '1' }, { type: 'authors', string: 'A' }], []],
    ['one missing', [{ type: 'authors', string: 'A' }], ['"isbn" is mandatory']],
    ['both missing, each named', [{ type: 'name', string: 'x' }], ['"isbn" is mandatory', '"authors" is mandatory']],
  ])('%s', (_name, items, messages) => {
    if (messages.length === 0) {
      expect(create(items).properties.isbn).toHaveLength(1);
      return;
    }
    const error = thrown(() => create(items));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.message)).toEqual(messages);
  });

  it('asks nothing of a property a formula computes', () => {
    expect(() => create([{ type: 'isbn', string: '1' }, { type: 'authors', string: 'A' }])).not.toThrow();
  });
});

describe('mandatory on later writes: not retroactive', () => {
  it('a write leaving a missing mandatory property alone is accepted', () => {
    const stored = entityWith({ extra: { name: [val('name', { string: 'old' })] } });
    const result = applyWrite(stored, [{ type: 'name', string: 'new' }], context(EDITOR, { definitions }));
    expect(result.properties.name!.map((v) => v.string)).toEqual(['new']);
    expect(result.properties.isbn).toBeUndefined();
  });
});

describe('mandatory on delete', () => {
  const ISBN = hexId(0x301);
  const AUTHOR_A = hexId(0x302);
  const AUTHOR_B = hexId(0x303);
  const stored = () =>
    entityWith({
      extra: {
        isbn: [val('isbn', { string: '1' }, ISBN)],
        authors: [val('authors', { string: 'A' }, AUTHOR_A), val('authors', { string: 'B' }, AUTHOR_B)],
      },
    });
  const remove = (valueId: string, entity = stored()) => removeValue(entity, valueId, caller(EDITOR), definitions);

  it('refuses deleting the last value (400)', () => {
    const error = thrown(() => remove(ISBN));
    expect(error.kind).toBe('invalid');
    expect(error.message).toBe('"isbn" is mandatory: its last value cannot be deleted.');
  });

  it('allows deleting one of several values', () => {
    expect(remove(AUTHOR_A).properties.authors!.map((v) => v._id)).toEqual([AUTHOR_B]);
  });

  it('refuses deleting the last one left of a list', () => {
    const one = remove(AUTHOR_A);
    expect(thrown(() => remove(AUTHOR_B, { _id: stored()._id, properties: one.properties })).kind).toBe('invalid');
  });

  it('a property that is not mandatory loses its last value', () => {
    const entity = entityWith({ extra: { name: [val('name', { string: 'x' }, hexId(0x304))] } });
    expect(remove(hexId(0x304), entity).properties.name).toBeUndefined();
  });
});
