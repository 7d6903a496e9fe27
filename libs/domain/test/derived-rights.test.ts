import {
  dependentsOf,
  formulaDependencies,
  labelReferences,
  newProperties,
  ownersCanRead,
  parseFormula,
  pathValues,
  type Entity,
  type FormulaPath,
  type Properties,
} from '@entia/domain';
import { EDITOR, OWNER, STRANGER, VIEWER, hexId, propertiesWith, val } from './fixtures';

// Issue 14: a label or formula term copies a value of another entity only while some owner of the
// entity holding it may read that entity.
const READER = hexId(0xa6);
const SOURCE = hexId(0xb1);
const OTHER = hexId(0xb2);

/** An entity owned by `owners` holding a reference to SOURCE. */
const holder = (owners: string[], more: Properties = {}): Properties =>
  propertiesWith({ owner: owners, editor: [], expander: [], viewer: [], extra: { link: [val('link', { reference: SOURCE, string: 'Old label' })], ...more } });
/** The source: named "Plan", with a secret, readable as the shape says. */
const source = (shape: Parameters<typeof propertiesWith>[0]): Properties =>
  propertiesWith({ editor: [], expander: [], ...shape, extra: { name: [val('name', { string: 'Plan' })], secret: [val('secret', { string: 's3' })] } });

describe('ownersCanRead', () => {
  it.each<[string, string[], Parameters<typeof propertiesWith>[0], boolean]>([
    ['an owner is a viewer of the source', [READER], { owner: [OWNER], viewer: [READER] }, true],
    ['an owner holds a higher right', [READER], { owner: [OWNER], viewer: [], editor: [READER] }, true],
    ['the only owner holds no right on a private source', [READER], { owner: [OWNER], viewer: [VIEWER] }, false],
    ['one of several owners may read', [STRANGER, READER], { owner: [OWNER], viewer: [READER] }, true],
    ['a domain source, for any owner', [READER], { owner: [OWNER], viewer: [], sharing: 'domain' }, true],
    ['a public source', [READER], { owner: [OWNER], viewer: [], sharing: 'public' }, true],
    ['a holder left without owners, domain source', [], { owner: [OWNER], viewer: [], sharing: 'domain' }, false],
    ['a holder left without owners, public source', [], { owner: [OWNER], viewer: [], sharing: 'public' }, true],
    ['a reader of the holder who does not own it does not count', [OWNER], { owner: [EDITOR], viewer: [READER] }, false],
  ])('%s: %s', (_, owners, shape, expected) => {
    expect(ownersCanRead(holder(owners), source(shape))).toBe(expected);
  });

  it('counts inherited owners like explicit ones', () => {
    const inherited = holder([OWNER], { _owner: [val('_owner', { reference: OWNER }), val('_owner', { reference: READER, inherited: true })] });
    expect(ownersCanRead(inherited, source({ owner: [OWNER], viewer: [READER] }))).toBe(true);
  });
});

describe('labelReferences follows what the owners may read', () => {
  it.each<[string, Parameters<typeof propertiesWith>[0], string | undefined]>([
    ['readable: the label is the target name', { owner: [OWNER], viewer: [READER] }, 'Plan'],
    ['unreadable: the label is dropped', { owner: [OWNER], viewer: [] }, undefined],
    ['unreadable but public: the label is the target name', { owner: [OWNER], viewer: [], sharing: 'public' }, 'Plan'],
  ])('%s', (_, shape, label) => {
    const { properties, changed } = labelReferences(holder([READER]), new Map([[SOURCE, source(shape)]]));
    expect(changed).toBe(true);
    expect(properties.link![0]!.reference).toBe(SOURCE);
    expect(properties.link![0]!.string).toBe(label);
    expect(labelReferences(properties, new Map([[SOURCE, source(shape)]])).changed).toBe(false);
  });

  it('judges by the owners of the properties given, after a change of owners', () => {
    const target = source({ owner: [OWNER], viewer: [READER] });
    expect(labelReferences(holder([STRANGER]), new Map([[SOURCE, target]])).properties.link![0]!.string).toBeUndefined();
    expect(labelReferences(holder([STRANGER, READER]), new Map([[SOURCE, target]])).properties.link![0]!.string).toBe('Plan');
  });
});

describe('pathValues: formula terms read only what the owners may read', () => {
  const path = (text: string): FormulaPath => formulaDependencies(parseFormula(text)).paths[0]!;
  const entity = (_id: string, shape: Parameters<typeof propertiesWith>[0], type = 'memo'): Entity => ({
    _id,
    properties: newProperties(Object.entries({ ...source(shape), _type: [val('_type', { reference: hexId(type === 'memo' ? 0x71 : 0x72) })] })),
  });
  const typeName = (properties: Properties) => (properties._type?.[0]?.reference === hexId(0x71) ? 'memo' : 'other');
  const readable = entity(SOURCE, { owner: [OWNER], viewer: [READER] });
  const hidden = entity(OTHER, { owner: [OWNER], viewer: [] });

  it.each<[string, string, Entity[], unknown[]]>([
    ['a readable entity gives its values', 'link.*.secret', [readable], ['s3']],
    ['an unreadable one gives none', 'link.*.secret', [hidden], []],
    ['of several, only the readable ones', '_referrer.*.secret', [readable, hidden], ['s3']],
    ['ids of readable ones only (COUNT does not count the others)', '_child.*._id', [readable, hidden], [SOURCE]],
    ['a public one, whoever owns the holder', '_child.*._id', [entity(OTHER, { owner: [OWNER], viewer: [], sharing: 'public' })], [OTHER]],
    ['of the named type only', '_referrer.other.secret', [readable, entity(OTHER, { owner: [OWNER], viewer: [READER] }, 'other')], ['s3']],
  ])('%s', (_, text, related, expected) => {
    expect(pathValues(holder([READER]), path(text), related, typeName)).toEqual(expected);
  });
});

describe('dependentsOf: a change of who may read an entity reaches whoever copies from it', () => {
  const paths = (...formulas: string[]): FormulaPath[] => formulas.flatMap((text) => formulaDependencies(parseFormula(text)).paths);
  const change = (properties: string[]) => ({ typeName: 'memo', properties: new Set(properties), references: false });

  it.each(['_owner', '_editor', '_expander', '_viewer', '_sharing'])('%s changed: referrers (labels), and parents and referenced entities whose formulas read its type', (property) => {
    expect(dependentsOf([], change([property])).referrers).toBe(true);
    expect(dependentsOf(paths('_child.memo.secret'), change([property])).parents).toBe(true);
    expect(dependentsOf(paths('_referrer.*._id COUNT'), change([property])).referenced).toBe(true);
    // Formulas of other types never read it.
    expect(dependentsOf(paths('_child.other.secret', '_referrer.other.secret'), change([property]))).toMatchObject({ parents: false, referenced: false });
  });

  it('another change reaches only those reading the changed property', () => {
    expect(dependentsOf(paths('_child.memo.secret', '_referrer.memo.secret'), change(['note']))).toEqual({ parents: false, referenced: false, referrers: false, children: false });
  });
});
