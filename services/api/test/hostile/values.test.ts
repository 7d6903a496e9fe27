import request from 'supertest';
import { api, asOwner, bookType, describeAfterwards, entityPath, expectFieldError, expectNoNewEntity, HEX24, marker, person, postRaw, refusedEverywhere, t, target, untouched, useHostileFixture } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): value fields, numbers and dates, and _api_key: what a value may hold. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: value fields, numbers and dates, and _api_key: what a value may hold', () => {
  useHostileFixture();

  // --- value fields -----------------------------------------------------------------------------

  describe('value fields that do not fit the definition: 400, nothing written', () => {
    it.each<[string, object, string]>([
      ['wrong value field (string for a number)', { type: 'pages', string: '12' }, '/string'],
      ['wrong value field (number for a string)', { type: 'title', number: 1 }, '/number'],
      ['wrong value field (string for a reference)', { type: 'author', string: HEX24 }, '/string'],
      ['wrong value field (date for a datetime)', { type: 'updated', date: '2024-01-01' }, '/date'],
      ['a file field on a string', { type: 'title', string: 'x', filename: 'a.txt' }, '/filename'],
      ['two value fields', { type: 'title', string: 'a', number: 1 }, '/number'],
      ['two value fields, both of the wrong kind', { type: 'title', boolean: true, date: '2024-01-01' }, '/boolean'],
      ['missing value field', { type: 'title' }, '/string'],
      ['missing value field on a reference', { type: 'author' }, '/reference'],
      ['a file missing filesize', { type: 'scan', filename: 'a.pdf', filetype: 'application/pdf' }, '/filesize'],
      ['null as the value', { type: 'title', string: null }, '/string'],
      ['number as a numeric string', { type: 'pages', number: '12' }, '/number'],
      ['boolean as a string', { type: 'available', boolean: 'true' }, '/boolean'],
      ['boolean as 1', { type: 'available', boolean: 1 }, '/boolean'],
      ['string as an array', { type: 'title', string: ['a', 'b'] }, '/string'],
      ['a negative filesize', { type: 'scan', filename: 'a.pdf', filesize: -1, filetype: 'application/pdf' }, '/filesize'],
      ['a fractional filesize', { type: 'scan', filename: 'a.pdf', filesize: 1.5, filetype: 'application/pdf' }, '/filesize'],
      ['a filetype that is no MIME type', { type: 'scan', filename: 'a.pdf', filesize: 1, filetype: 'pdf\r\nX-Injected: 1' }, '/filetype'],
      ['language on a plain property', { type: 'title', string: 'x', language: 'en' }, '/language'],
      ['a malformed language', { type: 'label', string: 'x', language: 'en_US; drop' }, '/language'],
      ['no type at all', { string: 'x' }, '/type'],
      ['an unknown property', { type: 'colour', string: 'red' }, '/type'],
    ])('%s', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });
  });

  // --- numbers and dates -------------------------------------------------------------------

  describe('numbers and dates', () => {
    it.each<[string, string, string]>([
      ['1e400 (Infinity once parsed)', '{"type":"pages","number":1e400}', '/number'],
      ['-1e400', '{"type":"pages","number":-1e400}', '/number'],
      ['a filesize of 1e400', '{"type":"scan","filename":"a.pdf","filesize":1e400,"filetype":"application/pdf"}', '/filesize'],
      ['a filesize of 1e20 (over the maximum)', '{"type":"scan","filename":"a.pdf","filesize":1e20,"filetype":"application/pdf"}', '/filesize'],
    ])('%s: 400 naming the field', async (_name, item, field) => {
      const update = await untouched(() => postRaw(entityPath(target._id), `[{"type":"title","string":"changed"},${item}]`));
      expectFieldError(update, { pointer: `/1${field}` });
      const title = marker();
      const create = await untouched(() =>
        postRaw(`/api/${t.db}/entity`, `[{"type":"_type","reference":"${bookType}"},{"type":"title","string":"${title}"},${item}]`),
        [],
      );
      expectFieldError(create, { pointer: `/2${field}` });
      await expectNoNewEntity(t, title);
    });

    it.each([
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-2-3',
      ' 2024-02-03',
      '2024-02-03\n',
      '2024-02-03T00:00:00Z',
      '20240203',
      '+02024-02-03',
      '',
    ])('date %j: 400 naming it', async (date) => {
      await refusedEverywhere({ type: 'published', date }, '/date');
    });

    it.each([
      '2024-05-01T25:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T23:60:00Z',
      '2024-05-01T23:59:60Z',
      '2024-02-30T00:00:00Z',
      '2024-05-01T12:00:00',
      '2024-05-01T12:00:00+99:99',
      '2024-05-01T12:00:00+2:00',
      '2024-05-01 12:00:00Z',
      'now',
      '',
      '2024-05-01T12:00:00Z; DROP',
    ])('datetime %j: 400 naming it', async (datetime) => {
      await refusedEverywhere({ type: 'updated', datetime }, '/datetime');
    });
  });

  describe('_api_key takes no value at all', () => {
    it.each<[string, object, string]>([
      ['a filename', { type: '_api_key', filename: 'key.txt' }, '/0/filename'],
      ['a filesize', { type: '_api_key', filesize: 1 }, '/0/filesize'],
      ['a language', { type: '_api_key', language: 'en' }, '/0/language'],
      ['a string', { type: '_api_key', string: 'my-own-key-0123456789' }, '/0/string'],
    ])('with %s: 400, and no key is generated', async (_name, bad, pointer) => {
      const res = await untouched(() => asOwner(request(api.app).post(entityPath(person.id))).send([bad]), ['person']);
      expectFieldError(res, { pointer });
    });
  });

  describeAfterwards();
});
