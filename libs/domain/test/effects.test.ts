import { compileType, effectsOf, needsOwnRefresh, needsSettling, newProperties, parseFormula, formulaDependencies, type CompiledType, type Entity, type MetaTypes, type SchemaView } from '@entia/domain';
import { OWNER, def, hexId, val } from './fixtures';

/** What a change leaves for others (the outbox), and when the worker is needed at all. */

const META: MetaTypes = { entity: hexId(0xd1), property: hexId(0xd2), person: hexId(0xd3), database: hexId(0xd4) };
const BOOK = hexId(0xd5);
const SHELF = hexId(0xd6);
const ID = hexId(0xd7);

const schema = (types: Record<string, CompiledType> = {}, names: Record<string, string> = {}): SchemaView => ({
  typeNames: new Map(Object.entries(names)),
  paths: Object.values(types).flatMap((type) => type.formulas.flatMap((formula) => formula.paths)),
  typeOf: (id) => (id !== undefined && types[id]) || compileType(new Map()),
});
// The same values in every state, so that only what a case changes differs.
const owner = val('_owner', { reference: OWNER });
const types = new Map<string, ReturnType<typeof val>>();
const typeValue = (type: string) => types.get(type) ?? types.set(type, val('_type', { reference: type })).get(type)!;
const entity = (type: string, extra: Entity['properties'] = {}): Entity => ({
  _id: ID,
  properties: newProperties(Object.entries({ _type: [typeValue(type)], _owner: [owner], ...extra })),
});
const file = val('scan', { filename: 'a.pdf', filesize: 10, filetype: 'application/pdf' });
const text = val('title', { string: 'x' });

describe('effectsOf', () => {
  it.each<[string, SchemaView, Entity | undefined, Entity | undefined, Entity['properties'][string], string[]]>([
    ['a new entity nobody reads', schema(), undefined, entity(BOOK), [], []],
    ['a deletion (references to it must go)', schema(), entity(BOOK), undefined, [], ['changed']],
    ['a deletion with a file among its values', schema(), entity(BOOK, { scan: [file] }), undefined, [file, text], ['changed', 'files-gone']],
    ['an update of a title that nobody reads', schema(), entity(BOOK, { title: [text] }), entity(BOOK, { title: [{ ...text, string: 'y' }] }), [text], []],
    ['a property definition written', schema(), undefined, entity(META.property, { _parent: [val('_parent', { reference: BOOK })] }), [], ['reindex']],
  ])('%s', (_name, view, before, after, gone, kinds) => {
    expect(effectsOf(view, META, before, after, gone).map((effect) => effect.kind)).toEqual(kinds);
  });

  it('names only the file values among those gone', () => {
    const [effect] = effectsOf(schema(), META, entity(BOOK), entity(BOOK), [file, text]);
    expect(effect).toEqual({ kind: 'files-gone', values: [file] });
  });

  it('reindexes both types when a definition moves between them', () => {
    const before = entity(META.property, { _parent: [val('_parent', { reference: BOOK })] });
    const after = entity(META.property, { _parent: [val('_parent', { reference: SHELF })] });
    expect(effectsOf(schema(), META, before, after, []).find((effect) => effect.kind === 'reindex')).toEqual({ kind: 'reindex', types: [BOOK, SHELF] });
  });
});

describe('needsSettling and needsOwnRefresh', () => {
  const counting = compileType(new Map([['books', def('books', 'number', { formula: '_child.book.pages SUM' })]]));
  const readers = schema({ [SHELF]: counting }, { [BOOK]: 'book', [SHELF]: 'shelf' });
  const change = (event: 'created' | 'updated' | 'deleted', type: string, properties: string[]) => ({
    entity: ID, type, event, properties, references: false, inherits: false, parents: [SHELF], referenced: [],
  });

  it.each<[string, SchemaView, ReturnType<typeof change>, boolean, boolean]>([
    ['a book page count read by its shelf', readers, change('updated', BOOK, ['pages']), true, false],
    ['a book title nobody reads', readers, change('updated', BOOK, ['title']), false, false],
    ['a shelf, whose own formula reads its children', readers, change('updated', SHELF, ['name']), true, true],
    ['a deletion', schema(), change('deleted', BOOK, ['title']), true, false],
    ['_inheritrights turned on or off', schema(), change('updated', BOOK, ['_inheritrights']), true, true],
    ['its owners changed (which labels it may show)', schema(), change('updated', BOOK, ['_owner']), true, true],
  ])('%s', (_name, view, changed, settles, own) => {
    expect(needsSettling(view, changed)).toBe(settles);
    expect(needsOwnRefresh(view, changed)).toBe(own);
  });

  it('reads the formula paths it is given', () => {
    expect(formulaDependencies(parseFormula('_child.book.pages SUM')).paths).toEqual(counting.formulas[0]!.paths);
  });
});
