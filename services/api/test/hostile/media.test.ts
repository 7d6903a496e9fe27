import request from 'supertest';
import { api, asOwner, describeAfterwards, entityPath, expectProblem, postRaw, socketPost, t, target, untouched, useHostileFixture } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): media types, encodings and JSON syntax. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: media types, encodings and JSON syntax', () => {
  useHostileFixture();

  // --- media types and JSON syntax ----------------------------------------------------------

  describe('bodies that are not JSON', () => {
    const json = JSON.stringify([{ type: 'title', string: 'changed' }]);

    it.each([
      ['text/plain', 'text/plain'],
      ['text/plain with JSON inside', 'text/plain; charset=utf-8'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['application/xml', 'application/xml'],
      ['application/octet-stream', 'application/octet-stream'],
      ['application/jsonp', 'application/jsonp'],
      ['application/json with an unsupported charset', 'application/json; charset=latin1'],
    ])('%s: 415', async (_name, type) => {
      expectProblem(await untouched(() => postRaw(entityPath(target._id), json, type)), 415);
      expectProblem(await untouched(() => postRaw(`/api/${t.db}/entity`, json, type)), 415);
    });

    it('multipart/form-data: 415', async () => {
      const res = await untouched(() => asOwner(request(api.app).post(entityPath(target._id))).field('type', 'title').field('string', 'changed'));
      expectProblem(res, 415);
      const upload = await untouched(() => asOwner(request(api.app).post(`/api/${t.db}/entity`)).attach('file', Buffer.from(json), 'values.json'));
      expectProblem(upload, 415);
    });

    it('a body without Content-Type: 415', async () => {
      const res = await untouched(() => socketPost(entityPath(target._id), Buffer.from(json), {}));
      expectProblem(res, 415);
    });

    it('an unsupported Content-Encoding: 415', async () => {
      const res = await untouched(() => socketPost(entityPath(target._id), Buffer.from(json), { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' }));
      expectProblem(res, 415);
    });

    it('a gzip Content-Encoding whose body is not gzip: 400', async () => {
      const res = await untouched(() => socketPost(entityPath(target._id), Buffer.from(json), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }));
      expectProblem(res, 400);
    });

    it.each<[string, string]>([
      ['truncated JSON', '[{"type":"title","string":'],
      ['trailing garbage', `${json}xyz`],
      ['two JSON texts', `${json}${json}`],
      ['a trailing comma', '[{"type":"title","string":"x"},]'],
      ['single quotes', "[{'type':'title','string':'x'}]"],
      ['unquoted keys', '[{type:"title",string:"x"}]'],
      ['a comment', '[/* c */{"type":"title","string":"x"}]'],
      ['NaN', '[{"type":"pages","number":NaN}]'],
      ['Infinity', '[{"type":"pages","number":Infinity}]'],
      ['a hex number', '[{"type":"pages","number":0x10}]'],
      ['a raw control character in a string', '[{"type":"title","string":"a\u0001b"}]'],
      ['an invalid escape', '[{"type":"title","string":"\\x41"}]'],
    ])('invalid JSON with the JSON content type (%s): 400', async (_name, body) => {
      expectProblem(await untouched(() => postRaw(entityPath(target._id), body)), 400);
      expectProblem(await untouched(() => postRaw(`/api/${t.db}/entity`, body)), 400);
    });

    it('JSON with a BOM and trailing garbage: 400', async () => {
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${json}]`)]);
      expectProblem(await untouched(() => postRaw(entityPath(target._id), bom)), 400);
    });

    it('an empty body with the JSON content type: 400', async () => {
      expectProblem(await untouched(() => postRaw(entityPath(target._id), '')), 400);
      expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(target._id)))), 400);
    });
  });

  describeAfterwards();
});
