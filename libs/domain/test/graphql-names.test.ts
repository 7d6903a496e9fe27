import { graphqlTypeName, sanitiseGraphqlName, uniqueGraphqlNames } from '../src/graphql-names';

describe('GraphQL names (issue 17)', () => {
  it.each([
    ['book', 'Book'],
    ['Book', 'Book'],
    ['blog post', 'Blog_post'],
    ['Émile', 'Emile'],
    ['2024 report', 'T2024_report'],
    ['__schema', 'Schema'],
    ['_type', 'Type'],
    ['日本', 'T'],
    ['', 'T'],
  ])('type %j → %j', (text, expected) => {
    expect(graphqlTypeName(text)).toBe(expected);
  });

  it.each([
    ['title', 'title'],
    ['_id', '_id'],
    ['first-name', 'first_name'],
    ['1st', 'f1st'],
    ['__typename', 'ftypename'],
    ['a.b', 'a_b'],
  ])('field %j → %j', (text, expected) => {
    expect(sanitiseGraphqlName(text, 'f')).toBe(expected);
  });

  it('gives later sources that sanitise alike a numbered name, and avoids reserved names', () => {
    const names = uniqueGraphqlNames(['blog post', 'blog-post', 'Entity', 'blog_post'], graphqlTypeName, ['Entity', 'Query']);
    expect([...names.values()]).toEqual(['Blog_post', 'Blog_post_2', 'Entity_2', 'Blog_post_3']);
  });

  it('keeps the names a type derives (BookList) free of other types', () => {
    const names = uniqueGraphqlNames(['book', 'book list', 'BookList'], graphqlTypeName, [], ['List', 'Filter']);
    expect([...names.values()]).toEqual(['Book', 'Book_list', 'BookList_2']);
  });

  it('is deterministic: the same sources give the same names', () => {
    const sources = ['x y', 'x-y', 'x_y'];
    expect(uniqueGraphqlNames(sources, graphqlTypeName)).toEqual(uniqueGraphqlNames(sources, graphqlTypeName));
  });
});
