import { checkPlacement, definitionParent, type Entity, type MetaTypes, type Properties } from '@entia/domain';
import { hexId, thrown, val } from './fixtures';

/** Where a property definition may sit (SPEC §5): one _parent, a type, no clash with its siblings. */

const META: MetaTypes = { entity: hexId(0x901), property: hexId(0x902), person: hexId(0x903), database: hexId(0x904) };
const BOOK = hexId(0x910);

const definition = (id: number, name: string, parents: string[] = [BOOK]): Entity => ({
  _id: hexId(id),
  properties: {
    _type: [val('_type', { reference: META.property })],
    name: [val('name', { string: name })],
    type: [val('type', { string: 'string' })],
    ...(parents.length > 0 ? { _parent: parents.map((reference) => val('_parent', { reference })) } : {}),
  },
});
const typed = (type: string): Properties => ({ _type: [val('_type', { reference: type })] });

describe('definitionParent', () => {
  it('is the one _parent of a valid definition', () => {
    expect(definitionParent(definition(1, 'title'))).toBe(BOOK);
  });

  it.each<[string, string[]]>([
    ['no _parent', []],
    ['two _parents', [BOOK, hexId(0x911)]],
  ])('refuses %s (400)', (_name, parents) => {
    const error = thrown(() => definitionParent(definition(1, 'title', parents)));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.message)).toEqual(['a property definition needs exactly one _parent: the type it belongs to']);
  });
});

describe('checkPlacement', () => {
  it.each<[string, Properties | undefined, Entity[], string[]]>([
    ['under a type, a new name', typed(META.entity), [definition(2, 'pages')], []],
    ['under no entity', undefined, [], ['its _parent must be a type']],
    ['under an entity that is no type', typed(BOOK), [], ['its _parent must be a type']],
    ['a name the type already defines', typed(META.entity), [definition(2, 'title')], ['the type already defines "title"']],
  ])('%s', (_name, parent, siblings, messages) => {
    const check = () => checkPlacement(definition(1, 'title'), parent, siblings, META);
    if (messages.length === 0) return expect(check).not.toThrow();
    const error = thrown(check);
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.message)).toEqual(messages);
  });
});
