import type { Entity, TypeDescription, Value } from '../src/types';
import { namesToRead, planUpdate, type UpdatePlan } from '../src/typed/update';
import { InputError, UnknownPropertyError } from '../src/typed/values';
import { def } from './support/definitions';

/**
 * `update` by name: which present values it must read first (`namesToRead`), and what it sends
 * (`planUpdate`): one POST of values, then one DELETE per dropped value.
 */


const BOOK: TypeDescription = {
  _id: 'type-book',
  name: 'book',
  properties: [
    def('title', 'string'),
    def('pages', 'number'),
    def('available', 'boolean'),
    def('updated', 'datetime'),
    def('cover', 'file'),
    def('tags', 'string', { list: true }),
    def('ratings', 'number', { list: true }),
    def('days', 'date', { list: true }),
    def('times', 'datetime', { list: true }),
    def('authors', 'reference', { list: true }),
    def('label', 'string', { multilingual: true }),
    def('keywords', 'string', { list: true, multilingual: true }),
    def('score', 'number', { formula: 'SUM(ratings.number)' }),
    def('isbn', 'string', { readonly: true }),
    def('constructor', 'string', { list: true }),
    def('toString', 'string'),
  ],
};

const P1 = '64b000000000000000000001';
const P2 = '64b000000000000000000002';
const P3 = '64b000000000000000000003';

/** A stored value whose `_id` is `id`. */
function v(id: string, type: string, fields: Partial<Value>): Value {
  return { _id: id, type, created: { at: '2024-01-01T00:00:00.000Z', by: P1 }, ...fields };
}
function current(properties: Record<string, Value[]>): Entity {
  return { _id: 'ent-1', ...properties };
}
const plan = (values: UpdatePlan['values'] = [], deletions: string[] = []): UpdatePlan => ({ values, deletions });

const TAGS = current({ tags: [v('t-sf', 'tags', { string: 'sf' }), v('t-classic', 'tags', { string: 'classic' }), v('t-old', 'tags', { string: 'old' })] });
const LABELS = current({
  label: [v('l-en', 'label', { string: 'Dune', language: 'en' }), v('l-et', 'label', { string: 'Düün', language: 'et' })],
  keywords: [v('k-en-a', 'keywords', { string: 'a', language: 'en' }), v('k-en-b', 'keywords', { string: 'b', language: 'en' }), v('k-et', 'keywords', { string: 'x', language: 'et' })],
});
const RIGHTS = current({
  _owner: [v('o-1', '_owner', { reference: P1, string: 'Ann' })],
  _viewer: [
    v('vw-2', '_viewer', { reference: P2, string: 'Bob' }),
    v('vw-3', '_viewer', { reference: P3, string: 'Cy', inherited: true }),
    // The owner, as the API lists it under every lower level: the `_owner` value itself.
    v('o-1', '_viewer', { reference: P1, string: 'Ann', property_type: '_owner' }),
  ],
  _parent: [v('par-1', '_parent', { reference: P3, string: 'Shelf' })],
});

describe('namesToRead: the present values an update needs', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a single value: none (the server replaces it)', { title: 'Dune' }, []],
    ['a list: its values', { tags: ['sf'] }, ['tags']],
    ['null: the values it removes', { title: null, pages: 1 }, ['title']],
    ['rights: their values', { _owner: [P1], _viewer: P2 }, ['_owner', '_viewer']],
    ['_parent: its values', { _parent: [P1] }, ['_parent']],
    ['_sharing and _inheritrights: none', { _sharing: 'public', _inheritrights: true }, []],
    ['a multilingual single value: none', { label: { en: 'Dune' } }, []],
    ['one language removed: that property', { label: { en: null, et: 'Düün' } }, ['label']],
    ['a multilingual list: its values', { keywords: { en: ['a'] } }, ['keywords']],
    ['undefined: nothing', { tags: undefined, title: undefined }, []],
    ['a name the type lacks: nothing (planUpdate refuses it)', { subtitle: 'x' }, []],
    ['a list named constructor', { constructor: ['c'] }, ['constructor']],
  ])('%s', (_case, patch, expected) => {
    expect(namesToRead(BOOK, patch)).toEqual(expected);
  });
});

describe('planUpdate: what an update sends', () => {
  it.each<[string, Record<string, unknown>, Entity | undefined, UpdatePlan]>([
    ['a single value is replaced (no _id: the server replaces it)', { title: 'Dune' }, undefined, plan([{ type: 'title', string: 'Dune' }])],
    ['false is written, not skipped', { available: false }, undefined, plan([{ type: 'available', boolean: false }])],
    ['a Date as ISO 8601', { updated: new Date(Date.UTC(2024, 0, 2)) }, undefined, plan([{ type: 'updated', datetime: '2024-01-02T00:00:00.000Z' }])],
    ['undefined leaves a property alone', { title: undefined, tags: undefined }, TAGS, plan()],
    ['an empty patch sends nothing', {}, undefined, plan()],
    ['null deletes every value of a single property', { title: null }, current({ title: [v('ti', 'title', { string: 'x' })] }), plan([], ['ti'])],
    ['null on a property without values deletes nothing', { title: null }, current({}), plan()],
    ['null deletes a whole list', { tags: null }, TAGS, plan([], ['t-sf', 't-classic', 't-old'])],
    ['[] deletes a whole list', { tags: [] }, TAGS, plan([], ['t-sf', 't-classic', 't-old'])],
    ['a list given as it is: no write, no delete', { tags: ['sf', 'classic', 'old'] }, TAGS, plan()],
    ['a list reordered: no write, no delete', { tags: ['old', 'sf', 'classic'] }, TAGS, plan()],
    [
      'a changed item is overwritten in place, keeping its _id',
      { tags: ['sf', 'new', 'old'] },
      TAGS,
      plan([{ type: 'tags', string: 'new', _id: 't-classic' }]),
    ],
    ['extra items are added', { tags: ['sf', 'classic', 'old', 'a', 'b'] }, TAGS, plan([{ type: 'tags', string: 'a' }, { type: 'tags', string: 'b' }])],
    ['surplus items are deleted', { tags: ['classic'] }, TAGS, plan([], ['t-sf', 't-old'])],
    ['one item given alone replaces the list', { tags: 'sf' }, TAGS, plan([], ['t-classic', 't-old'])],
    [
      'overwrite, then add: all changed',
      { tags: ['x', 'y', 'z', 'w'] },
      TAGS,
      plan([{ type: 'tags', string: 'x', _id: 't-sf' }, { type: 'tags', string: 'y', _id: 't-classic' }, { type: 'tags', string: 'z', _id: 't-old' }, { type: 'tags', string: 'w' }]),
    ],
    [
      'a repeated item is added once more',
      { tags: ['sf', 'sf'] },
      current({ tags: [v('t-sf', 'tags', { string: 'sf' })] }),
      plan([{ type: 'tags', string: 'sf' }]),
    ],
    [
      'one of two equal items is deleted',
      { tags: ['sf'] },
      current({ tags: [v('t-1', 'tags', { string: 'sf' }), v('t-2', 'tags', { string: 'sf' })] }),
      plan([], ['t-2']),
    ],
    [
      'numbers compare as numbers (0 is not false)',
      { ratings: [0, 1] },
      current({ ratings: [v('r-0', 'ratings', { number: 0 }), v('r-1', 'ratings', { number: 1 })] }),
      plan(),
    ],
    [
      'dates compare as dates',
      { days: ['2024-01-01'] },
      current({ days: [v('d-1', 'days', { date: '2024-01-01' }), v('d-2', 'days', { date: '2024-01-02' })] }),
      plan([], ['d-2']),
    ],
    [
      'a datetime given with an offset equals its UTC form',
      { times: ['2024-05-01T12:00:00+02:00', new Date('2024-05-02T00:00:00Z')] },
      current({ times: [v('dt-1', 'times', { datetime: '2024-05-01T10:00:00.000Z' }), v('dt-2', 'times', { datetime: '2024-05-02T00:00:00.000Z' })] }),
      plan(),
    ],
    [
      'a datetime in another format is not taken for an equal one',
      { times: ['May 1, 2024 10:00 UTC'] },
      current({ times: [v('dt-1', 'times', { datetime: '2024-05-01T10:00:00.000Z' })] }),
      plan([{ type: 'times', datetime: 'May 1, 2024 10:00 UTC', _id: 'dt-1' }]),
    ],
    [
      'references kept as they are, whatever their label',
      { authors: [P1, P2] },
      current({ authors: [v('a-1', 'authors', { reference: P1, string: 'Ann' }), v('a-2', 'authors', { reference: P2, string: 'Bob' })] }),
      plan(),
    ],
    [
      'a reference replaced in place',
      { authors: [P1, P3] },
      current({ authors: [v('a-1', 'authors', { reference: P1, string: 'Ann' }), v('a-2', 'authors', { reference: P2, string: 'Bob' })] }),
      plan([{ type: 'authors', reference: P3, _id: 'a-2' }]),
    ],
    ['a multilingual single value per language', { label: { et: 'Uus' } }, undefined, plan([{ type: 'label', string: 'Uus', language: 'et' }])],
    ['{en: null} deletes English only', { label: { en: null } }, LABELS, plan([], ['l-en'])],
    ['{en: null, et: …}: one deleted, one written', { label: { en: null, et: 'Uus' } }, LABELS, plan([{ type: 'label', string: 'Uus', language: 'et' }], ['l-en'])],
    ['null deletes every language', { label: null }, LABELS, plan([], ['l-en', 'l-et'])],
    ['a language left undefined is left alone', { label: { en: undefined } }, LABELS, plan()],
    [
      'a multilingual list is replaced in the languages given only',
      { keywords: { en: ['a', 'c'] } },
      LABELS,
      plan([{ type: 'keywords', string: 'c', language: 'en', _id: 'k-en-b' }]),
    ],
    ['a multilingual list: equal values kept in their language', { keywords: { en: ['b', 'a'], et: ['x'] } }, LABELS, plan()],
    [
      'a value equal but in another language is not kept',
      { keywords: { et: ['a'] } },
      LABELS,
      plan([{ type: 'keywords', string: 'a', language: 'et', _id: 'k-et' }]),
    ],
    ['{en: []} empties one language of a list', { keywords: { en: [] } }, LABELS, plan([], ['k-en-a', 'k-en-b'])],
    ['{en: null} on a list deletes that language', { keywords: { en: null } }, LABELS, plan([], ['k-en-a', 'k-en-b'])],
    ['rights as given: nothing changes', { _owner: [P1] }, RIGHTS, plan()],
    ['rights given one id', { _owner: P1 }, RIGHTS, plan()],
    ['rights replaced: a changed id overwritten in place', { _owner: [P2] }, RIGHTS, plan([{ type: '_owner', reference: P2, _id: 'o-1' }])],
    ['rights added beside', { _owner: [P1, P2] }, RIGHTS, plan([{ type: '_owner', reference: P2 }])],
    [
      'inherited rights are neither kept, overwritten nor deleted',
      { _viewer: [P1] },
      RIGHTS,
      plan([{ type: '_viewer', reference: P1, _id: 'vw-2' }]),
    ],
    ['an inherited right asked for explicitly is added', { _viewer: [P2, P3] }, RIGHTS, plan([{ type: '_viewer', reference: P3 }])],
    ['_viewer: [] deletes the explicit viewers only', { _viewer: [] }, RIGHTS, plan([], ['vw-2'])],
    ['the owner listed as a viewer is not a viewer value to reuse or delete', { _viewer: [P2, P1] }, RIGHTS, plan([{ type: '_viewer', reference: P1 }])],
    ['_parent replaced', { _parent: [P1] }, RIGHTS, plan([{ type: '_parent', reference: P1, _id: 'par-1' }])],
    ['_parent kept', { _parent: P3 }, RIGHTS, plan()],
    ['_sharing written', { _sharing: 'public' }, undefined, plan([{ type: '_sharing', string: 'public' }])],
    ['_inheritrights written', { _inheritrights: false }, undefined, plan([{ type: '_inheritrights', boolean: false }])],
    ['a file property emptied with null', { cover: null }, current({ cover: [v('f-1', 'cover', { filename: 'a', filesize: 1, filetype: 'x' })] }), plan([], ['f-1'])],
    ['a list named constructor', { constructor: ['c'] }, current({ constructor: [v('c-1', 'constructor', { string: 'b' })] }), plan([{ type: 'constructor', string: 'c', _id: 'c-1' }])],
    ['a list named constructor the entity lacks', { constructor: ['c'] }, current({}), plan([{ type: 'constructor', string: 'c' }])],
    ['a property named toString', { toString: 's' }, undefined, plan([{ type: 'toString', string: 's' }])],
    [
      'several properties in one plan',
      { title: 'Dune', tags: ['sf'], label: { en: null } },
      { ...TAGS, ...LABELS },
      plan([{ type: 'title', string: 'Dune' }], ['t-classic', 't-old', 'l-en']),
    ],
  ])('%s', (_case, patch, present, expected) => {
    expect(planUpdate(BOOK, patch, present)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['_parent: null', { _parent: null }, /"_parent" cannot be emptied; give the ids it should hold/],
    ['_owner: null', { _owner: null }, /"_owner" cannot be emptied/],
    ['_sharing: null', { _sharing: null }, /"_sharing" cannot be removed/],
    ['_type: null', { _type: null }, /"_type" cannot be removed/],
    ['_type changed', { _type: 'type-other' }, /"_type" cannot be written here/],
    ['_created', { _created: '2024-01-01T00:00:00Z' }, /"_created" cannot be written here/],
    ['a computed (formula) property', { score: 5 }, /"score" is computed/],
    ['a computed property removed', { score: null }, /"score" is computed/],
    ['a read-only property', { isbn: 'x' }, /"isbn" is read-only/],
    ['a file written', { cover: { filename: 'a', filesize: 1, filetype: 'x' } }, /"cover" is a file property: store files with upload\(\)/],
    ['an array on a single property', { title: ['a', 'b'] }, /"title" holds one value, not an array/],
    ['NaN', { pages: Number.NaN }, /"pages" takes a finite number/],
    ['a bad item in a list', { tags: ['a', 1] }, /"tags" takes a string, not number/],
    ['a plain value for a multilingual property', { label: 'Dune' }, /"label" is multilingual/],
    ['a bad value in one language', { label: { en: null, et: 5 } }, /"label" takes a string, not number/],
    ['an own __proto__ key from JSON.parse', JSON.parse('{"__proto__":{"title":"x"}}') as Record<string, unknown>, /"__proto__" cannot be written here/],
    ['rights as something else than ids', { _owner: [{ _id: P1 }] }, /"_owner" takes entity ids/],
  ])('refuses %s', (_case, patch, message) => {
    const attempt = () => planUpdate(BOOK, patch, current({}));
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(message);
  });

  it.each<[string, TypeDescription, Record<string, unknown>]>([
    ['a name the type does not define', BOOK, { subtitle: 'x' }],
    ['null on a name the type does not define', BOOK, { subtitle: null }],
    ['constructor on a type without it', { ...BOOK, properties: [def('title', 'string')] }, { constructor: 'x' }],
    ['valueOf', BOOK, JSON.parse('{"valueOf":"x"}') as Record<string, unknown>],
  ])('refuses %s as unknown', (_case, type, patch) => {
    expect(() => planUpdate(type, patch, undefined)).toThrow(UnknownPropertyError);
  });

  it('reads the present values only from the entity itself, not its prototype', () => {
    // A current entity without `toString` values must not offer Object.prototype.toString.
    expect(planUpdate(BOOK, { toString: null }, current({}))).toEqual(plan());
  });
});
