import { newProperties, presentEntity, selectedProperties, shownFrom, withShownRights, type Properties, type Value } from '@entia/domain';
import { EDITOR, EXPANDER, OWNER, VIEWER, hexId, val } from './fixtures';

const PARENT_OWNER = hexId(0xb1);

/** Who each shown list names, in order, with the property each entry is stored in. */
function lists(properties: Properties): Record<string, string[]> {
  const shown = withShownRights(properties);
  return Object.fromEntries(
    Object.entries(shown)
      .filter(([name]) => name.startsWith('_') && name !== '_inheritrights')
      .map(([name, values]) => [name, values.map((value) => `${value.reference}${value.property_type ? ` via ${value.property_type}` : ''}${value.inherited ? ' inherited' : ''}`)]),
  );
}

const rights = (entries: Partial<Record<'_owner' | '_editor' | '_expander' | '_viewer', string[]>>, extra: Properties = {}): Properties =>
  newProperties([...Object.entries(entries).map(([name, persons]) => [name, persons.map((person) => val(name, { reference: person }))] as [string, Value[]]), ...Object.entries(extra)]);

describe('withShownRights: right lists as they are meant (owner ⊇ editor ⊇ expander ⊇ viewer)', () => {
  it.each<[string, Properties, Record<string, string[]>]>([
    ['one per level: each lists the ones above it too', rights({ _owner: [OWNER], _editor: [EDITOR], _expander: [EXPANDER], _viewer: [VIEWER] }), {
      _owner: [OWNER],
      _editor: [EDITOR, `${OWNER} via _owner`],
      _expander: [EXPANDER, EDITOR + ' via _editor', `${OWNER} via _owner`],
      _viewer: [VIEWER, EXPANDER + ' via _expander', EDITOR + ' via _editor', `${OWNER} via _owner`],
    }],
    ['an owner alone: the lower lists appear, holding the owner', rights({ _owner: [OWNER] }), {
      _owner: [OWNER],
      _editor: [`${OWNER} via _owner`],
      _expander: [`${OWNER} via _owner`],
      _viewer: [`${OWNER} via _owner`],
    }],
    ['a person holding two levels is listed once at each, by its own value where it has one', rights({ _owner: [OWNER], _viewer: [OWNER] }), {
      _owner: [OWNER],
      _editor: [`${OWNER} via _owner`],
      _expander: [`${OWNER} via _owner`],
      _viewer: [OWNER],
    }],
    ['no rights: no lists', rights({}), {}],
  ])('%s', (_case, properties, expected) => {
    expect(lists(properties)).toEqual(expected);
  });

  it('an implied entry is the stored value itself: the same _id (deleting it deletes that right), reference and label', () => {
    const owner = val('_owner', { reference: OWNER, string: 'Ada' });
    const shown = withShownRights(newProperties([['_owner', [owner]]]));
    expect(shown._editor).toEqual([{ ...owner, type: '_editor', property_type: '_owner' }]);
    expect(shown._viewer![0]!._id).toBe(owner._id);
  });

  it('with _inheritrights, the inherited entries of each level are shown apart as _parent_<level>; without, none', () => {
    const inherited = val('_owner', { reference: PARENT_OWNER, inherited: true });
    const properties = newProperties([
      ['_owner', [val('_owner', { reference: OWNER }), inherited]],
      ['_viewer', [val('_viewer', { reference: VIEWER })]],
      ['_inheritrights', [val('_inheritrights', { boolean: true })]],
    ]);
    expect(lists(properties)).toEqual({
      _owner: [OWNER, `${PARENT_OWNER} inherited`],
      _parent_owner: [`${PARENT_OWNER} inherited`],
      _editor: [`${OWNER} via _owner`, `${PARENT_OWNER} via _owner inherited`],
      _parent_editor: [`${PARENT_OWNER} via _owner inherited`],
      _expander: [`${OWNER} via _owner`, `${PARENT_OWNER} via _owner inherited`],
      _parent_expander: [`${PARENT_OWNER} via _owner inherited`],
      _viewer: [VIEWER, `${OWNER} via _owner`, `${PARENT_OWNER} via _owner inherited`],
      _parent_viewer: [`${PARENT_OWNER} via _owner inherited`],
    });
    expect(Object.keys(withShownRights(newProperties([...Object.entries(properties)].filter(([name]) => name !== '_inheritrights'))))).not.toContain('_parent_owner');
  });

  it('leaves every other property as it is', () => {
    const properties = rights({ _owner: [OWNER] }, newProperties([['title', [val('title', { string: 'Dune' })]]]));
    expect(withShownRights(properties).title).toBe(properties.title);
  });
});

describe('what the store reads for props', () => {
  it.each<[string, string[]]>([
    ['_owner', ['_owner']],
    ['_editor', ['_owner', '_editor']],
    ['_viewer', ['_owner', '_editor', '_expander', '_viewer']],
    ['_parent_expander', ['_owner', '_editor', '_expander', '_inheritrights']],
    ['title', ['title']],
  ])('%s is shown from %j', (name, from) => {
    expect(shownFrom(name)).toEqual(from);
  });

  it('props naming a right list reads the levels above it, and shows them cumulative', () => {
    expect(selectedProperties(['name', '_editor.reference'])).toEqual(['name', '_owner', '_editor']);
    const owner = val('_owner', { reference: OWNER });
    const shown = presentEntity({ _id: hexId(1), properties: newProperties([['_owner', [owner]]]) }, ['_editor.reference']);
    expect(shown).toEqual({ _id: hexId(1), _editor: [{ _id: owner._id, reference: OWNER }] });
  });
});
