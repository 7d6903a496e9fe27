import type { PropertyDescription, TypeDescription, Value, ValueType } from '../src/types';
import { planUpdate } from '../src/typed/update';
import { InputError, toObject, toValueInputs } from '../src/typed/values';
import { toListQuery } from '../src/typed/where';
import { def } from './support/definitions';

/**
 * A value type this SDK does not know (a server newer than the package): the typed layer goes by
 * what the schema says of the property (`fields`, `input`), never by the type's name, so it still
 * writes, reads, filters, sorts and updates its values.
 */
const unknown = (name: string, type: string, front: Pick<PropertyDescription, 'fields' | 'input'>, extra: Partial<PropertyDescription> = {}): PropertyDescription =>
  ({ ...def(name), type: type as ValueType, ...front, ...extra }) as PropertyDescription;

const PLACE: TypeDescription = {
  _id: 'type-place',
  name: 'place',
  properties: [
    unknown('phone', 'phone', { fields: [{ name: 'string', scalar: 'string' }], input: 'value' }),
    unknown('rating', 'stars', { fields: [{ name: 'number', scalar: 'number' }], input: 'value' }, { list: true }),
    unknown('opened', 'moment', { fields: [{ name: 'datetime', scalar: 'datetime' }], input: 'value' }),
    unknown('owner', 'link', { fields: [{ name: 'reference', scalar: 'id' }], input: 'value' }),
    unknown('point', 'geo', {
      fields: [
        { name: 'lat', scalar: 'number' },
        { name: 'lon', scalar: 'number' },
      ],
      input: 'value',
    }),
    unknown('photo', 'image', { fields: [{ name: 'filename', scalar: 'string' }, { name: 'filesize', scalar: 'number' }], input: 'upload' }),
    unknown('ticket', 'sequence', { fields: [{ name: 'number', scalar: 'number' }], input: 'counter' }),
  ],
};

const OWNER = '64b000000000000000000001';
const stored = (type: string, data: Record<string, unknown>): Value => ({ _id: `v-${type}`, type, ...data, created: { at: '2024-01-01T00:00:00.000Z', by: OWNER } }) as Value;

describe('a value type the SDK does not know', () => {
  it('is written in the field(s) the schema names, checked by their scalar', () => {
    expect(toValueInputs(PLACE, { phone: '+372 555', rating: [4, 5], opened: new Date(Date.UTC(2024, 0, 2)), owner: OWNER, point: { lat: 59.4, lon: 24.7 } })).toEqual([
      { type: 'phone', string: '+372 555' },
      { type: 'rating', number: 4 },
      { type: 'rating', number: 5 },
      { type: 'opened', datetime: '2024-01-02T00:00:00.000Z' },
      { type: 'owner', reference: OWNER },
      { type: 'point', lat: 59.4, lon: 24.7 },
    ]);
  });

  it.each([
    ['a number for a string field', { phone: 5 }, /"phone" takes a string, not number/],
    ['text for a number field', { rating: ['4'] }, /"rating" takes a finite number, not string/],
    ['a bare value for a record', { point: 59.4 }, /"point" takes \{lat, lon\}, not number/],
    ['a record missing a field', { point: { lat: 59.4 } }, /"point.lon" takes a finite number, not undefined/],
    ['an uploaded type', { photo: 'x' }, /"photo" is a file property: store files with upload\(\)/],
    ['a server-numbered type', { ticket: 3 }, /"ticket" is a counter/],
  ])('refuses %s before anything is sent', (_, input, message) => {
    expect(() => toValueInputs(PLACE, input)).toThrow(InputError);
    expect(() => toValueInputs(PLACE, input)).toThrow(message);
  });

  it('is read from the field(s) the schema names: one is the value, several a record', () => {
    const object = toObject(
      {
        _id: 'ent-1',
        phone: [stored('phone', { string: '+372 555' })],
        rating: [stored('rating', { number: 4 })],
        owner: [stored('owner', { reference: OWNER, string: 'Ann' })],
        point: [stored('point', { lat: 59.4, lon: 24.7 })],
        ticket: [stored('ticket', { number: 7, string: '7' })],
      } as never,
      PLACE,
      { typeName: () => undefined },
    );
    expect({ ...object }).toEqual({ _id: 'ent-1', phone: '+372 555', rating: [4], owner: OWNER, point: { _id: 'v-point', lat: 59.4, lon: 24.7 }, ticket: 7 });
  });

  it('is filtered and sorted on its field(s)', () => {
    expect(toListQuery(PLACE, { where: { phone: { regex: /^\+372/ }, rating: { gte: 4 }, point: { lat: { gt: 59 } }, ticket: 7 }, sort: ['-phone', 'point'] })).toEqual({
      '_type.reference': 'type-place',
      'phone.string.regex': '/^\\+372/',
      'rating.number.gte': '4',
      'point.lat.gt': '59',
      'ticket.number': '7',
      sort: ['-phone.string', 'point.lat'],
    });
    expect(() => toListQuery(PLACE, { where: { point: { alt: 1 } } })).toThrow(/"point": a geo filters on lat or lon, not "alt"/);
  });

  it('is updated by comparing its field(s): an unchanged list value is kept', () => {
    const current = { _id: 'ent-1', rating: [stored('rating', { number: 4 })] } as never;
    expect(planUpdate(PLACE, { rating: [4, 5] }, current)).toEqual({ values: [{ type: 'rating', number: 5 }], deletions: [] });
  });
});
