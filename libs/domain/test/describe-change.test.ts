import { describeChange, newProperties, type Entity, type Value } from '@entia/domain';

const at = '2026-01-01T00:00:00.000Z';
const person = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const other = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const value = (type: string, data: Partial<Value>, _id: string): Value => ({ _id, type, ...data, created: { at, by: person } });
const entity = (values: Value[]): Entity => {
  const properties = newProperties();
  for (const v of values) properties[v.type] = [...(properties[v.type] ?? []), v];
  return { _id: 'cccccccccccccccccccccccc', properties };
};

describe('describeChange', () => {
  const owner = value('_owner', { reference: person, string: 'Ada' }, '000000000000000000000001');
  const title = value('title', { string: 'Dune' }, '000000000000000000000002');

  it('a right whose person was only renamed is no change: nothing for children to inherit again', () => {
    expect(describeChange(entity([owner, title]), entity([{ ...owner, string: 'Ada Lovelace' }, title]))).toBeUndefined();
    const withTag = describeChange(entity([owner, title]), entity([{ ...owner, string: 'Ada L.' }, title, value('tag', { string: 'sf' }, '000000000000000000000003')]));
    expect(withTag?.properties).toEqual(['tag']);
  });

  it('a right given to someone else is a change of that right', () => {
    expect(describeChange(entity([owner, title]), entity([{ ...owner, reference: other }, title]))?.properties).toEqual(['_owner']);
  });

  it('a renamed reference of an ordinary property still counts (formulas may read the label)', () => {
    const author = value('author', { reference: other, string: 'Frank' }, '000000000000000000000004');
    expect(describeChange(entity([author]), entity([{ ...author, string: 'Frank Herbert' }]))?.properties).toEqual(['author']);
  });
});
