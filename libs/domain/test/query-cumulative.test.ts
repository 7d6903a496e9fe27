import { conditionOf, matchesFilters, newProperties, parseListQuery, rawQueryOf, type Filter, type Properties, type Value } from '@entia/domain';

/**
 * Right lists filter as they are shown, cumulative (SPEC §4, §7a; catalogue GAP-4): a filter on a
 * right list is rewritten into its levels (`conditionOf`), which the store's compiler and the
 * in-memory matcher both read. Rows: the rewrite itself, then what it selects on an entity whose
 * persons each hold one level.
 */

const [OWNER, EDITOR, EXPANDER, VIEWER, HEIR, STRANGER] = [1, 2, 3, 4, 5, 6].map((n) => n.toString(16).padStart(24, '0')) as [string, string, string, string, string, string];

/** The one filter a query string parses to. */
function filterOf(query: string): Filter {
  const { filters } = parseListQuery(rawQueryOf(query));
  expect(filters).toHaveLength(1);
  return filters[0]!;
}

/** A condition written as `any:` or `all:` and the properties its filters name, in order. */
function shape(query: string): string {
  const condition = conditionOf(filterOf(query));
  const [kind, filters] = 'all' in condition ? ['all', condition.all] : ['any', condition.any];
  return `${kind}:${filters.map((filter) => filter.property).join(',')}`;
}

describe('conditionOf: a right list reads its level and every level above it', () => {
  it.each<[string, string]>([
    [`_owner.reference=${OWNER}`, 'any:_owner'],
    [`_editor.reference=${OWNER}`, 'any:_owner,_editor'],
    [`_expander.reference=${OWNER}`, 'any:_owner,_editor,_expander'],
    [`_viewer.reference=${OWNER}`, 'any:_owner,_editor,_expander,_viewer'],
    [`_viewer.reference.in=${OWNER},${EDITOR}`, 'any:_owner,_editor,_expander,_viewer'],
    // ANY-value over the whole shown list: some person of the list is not X
    [`_editor.reference.ne=${OWNER}`, 'any:_owner,_editor'],
    ['_editor.string=Ann', 'any:_owner,_editor'],
    ['_editor.string.regex=/^a/i', 'any:_owner,_editor'],
    ['_expander.reference.exists=true', 'any:_owner,_editor,_expander'],
    ['_expander._id.exists=true', 'any:_owner,_editor,_expander'],
    // no value on any level
    ['_expander.reference.exists=false', 'all:_owner,_editor,_expander'],
    ['_viewer._id.exists=false', 'all:_owner,_editor,_expander,_viewer'],
    ['_owner._id.exists=false', 'all:_owner'],
    // anything else is itself
    ['name.string=x', 'any:name'],
    ['name.string.exists=false', 'any:name'],
    [`_parent.reference=${OWNER}`, 'any:_parent'],
    ['_sharing.string=public', 'any:_sharing'],
    ['_parent_owner._id.exists=true', 'any:_parent_owner'],
    ['owner._id.exists=false', 'any:owner'],
  ])('%s → %s', (query, expected) => {
    expect(shape(query)).toBe(expected);
  });

  it('keeps the field, the operator and the operand of the filter on every level', () => {
    const condition = conditionOf(filterOf(`_editor.reference.in=${OWNER},${EDITOR}`));
    expect(condition).toEqual({
      any: [
        { property: '_owner', field: 'reference', op: 'in', values: [OWNER, EDITOR] },
        { property: '_editor', field: 'reference', op: 'in', values: [OWNER, EDITOR] },
      ],
    });
  });
});

describe('matchesFilters: who a right filter finds on an entity whose persons each hold one level', () => {
  let ids = 0;
  const value = (type: string, data: Partial<Value>): Value => ({
    _id: (0xa000 + ids++).toString(16).padStart(24, '0'),
    type,
    ...data,
    created: { at: '2024-01-01T00:00:00.000Z', by: OWNER },
  });
  const entity = (properties: Record<string, Partial<Value>[]>): Properties =>
    newProperties(Object.entries(properties).map(([name, data]) => [name, data.map((d) => value(name, d))]));

  const SHARED = entity({
    _owner: [{ reference: OWNER, string: 'Olga' }],
    _editor: [{ reference: EDITOR, string: 'Eve' }],
    _expander: [{ reference: EXPANDER, string: 'Xena' }],
    _viewer: [{ reference: VIEWER, string: 'Vic' }, { reference: HEIR, string: 'Ivo', inherited: true }],
  });
  const OWNED = entity({ _owner: [{ reference: OWNER, string: 'Olga' }] });
  const ORPHAN = entity({ name: [{ string: 'no rights stored' }] });

  const matches = (query: string, properties: Properties) => matchesFilters(parseListQuery(rawQueryOf(query)).filters, properties);

  it.each<[string, string, Record<string, boolean>]>([
    ['_owner', 'only owners', { [OWNER]: true, [EDITOR]: false, [EXPANDER]: false, [VIEWER]: false, [HEIR]: false, [STRANGER]: false }],
    ['_editor', 'owners and editors', { [OWNER]: true, [EDITOR]: true, [EXPANDER]: false, [VIEWER]: false, [HEIR]: false, [STRANGER]: false }],
    ['_expander', 'owners, editors, expanders', { [OWNER]: true, [EDITOR]: true, [EXPANDER]: true, [VIEWER]: false, [HEIR]: false, [STRANGER]: false }],
    ['_viewer', 'any right, inherited ones too', { [OWNER]: true, [EDITOR]: true, [EXPANDER]: true, [VIEWER]: true, [HEIR]: true, [STRANGER]: false }],
  ])('%s.reference=<person> finds %s', (right, _, expected) => {
    for (const [person, found] of Object.entries(expected)) expect([person, matches(`${right}.reference=${person}`, SHARED)]).toEqual([person, found]);
  });

  it.each<[string, Properties, boolean]>([
    // the parents picker of Entu's client: the caller's own entities are among those they may expand
    [`_expander.reference=${OWNER}`, OWNED, true],
    [`_expander.reference.in=${STRANGER},${OWNER}`, OWNED, true],
    [`_expander.reference.in=${STRANGER},${VIEWER}`, SHARED, false],
    // labels: the same levels
    ['_editor.string=Olga', OWNED, true],
    ['_editor.string=Xena', SHARED, false],
    ['_viewer.string.regex=/^iv/i', SHARED, true],
    // ne: some person of the shown list is someone else
    [`_editor.reference.ne=${OWNER}`, OWNED, false],
    [`_editor.reference.ne=${OWNER}`, SHARED, true],
    [`_owner.reference.ne=${OWNER}`, SHARED, false],
    // exists: the shown list has anyone at all, or nobody
    ['_expander.reference.exists=true', OWNED, true],
    ['_expander.reference.exists=false', OWNED, false],
    ['_editor._id.exists=false', ORPHAN, true],
    ['_viewer._id.exists=true', ORPHAN, false],
    ['_viewer.reference.exists=false', SHARED, false],
  ])('%s: %s', (query, properties, expected) => {
    expect(matches(query, properties)).toBe(expected);
  });
});
