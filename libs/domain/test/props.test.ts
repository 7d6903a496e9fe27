import { DomainError, MAX_PROPS, parseProps, selectedProperties, selectionOf } from '@entia/domain';

describe('parseProps', () => {
  it.each([
    ['name', ['name']],
    ['name,_created', ['name', '_created']],
    ['ordinal.number,group,name,query.string', ['ordinal.number', 'group', 'name', 'query.string']],
    ['_type.string,add_from.reference', ['_type.string', 'add_from.reference']],
    ['photo.filename,photo.filesize', ['photo.filename', 'photo.filesize']],
    ['constructor', ['constructor']],
  ])('%j is %j', (text, props) => {
    expect(parseProps(text)).toEqual(props);
  });

  it.each([
    ['', '"" is not a property name or <property>.<field>'],
    ['a,', '"" is not a property name or <property>.<field>'],
    ['__proto__', '"__proto__" is not a property name or <property>.<field>'],
    ['a.b.c', '"a.b.c" is not a property name or <property>.<field>'],
    ['a.', '"" is not a value field'],
    ['ordinal.integer', '"integer" is not a value field'],
    ['ordinal.__proto__', '"__proto__" is not a value field'],
    ['ordinal._id', '"_id" is not a value field'],
    ['name,$where', '"$where" is not a property name or <property>.<field>'],
    [Array.from({ length: MAX_PROPS + 1 }, (_, i) => `p${i}`).join(','), `at most ${MAX_PROPS} entries`],
  ])('%j is refused, naming props', (text, message) => {
    let error: unknown;
    try {
      parseProps(text);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(DomainError);
    const [only] = (error as DomainError).errors;
    expect(only).toEqual({ parameter: 'props', message: expect.stringContaining(message) });
  });
});

describe('selectionOf and selectedProperties', () => {
  it('say per property all of it, or which fields; each property read once', () => {
    const props = ['ordinal.number', 'name', 'ordinal.string', '_type.string', '_type'];
    expect(selectionOf(props)).toEqual(new Map<string, unknown>([['ordinal', new Set(['number', 'string'])], ['name', 'all'], ['_type', 'all']]));
    expect(selectedProperties(props)).toEqual(['ordinal', 'name', '_type']);
  });
});
