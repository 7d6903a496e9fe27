import { MAX_FIELD_ERRORS } from '@entia/domain';
import { gzipSync } from 'node:zlib';
import { asResponse, chunkedPost, createBook, describeAfterwards, entityPath, expectFieldError, expectNoNewEntity, expectProblem, marker, MIB, postRaw, postTarget, refusedEverywhere, socketPost, t, target, untouched, useHostileFixture } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): sizes and body shapes. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: sizes and body shapes', () => {
  useHostileFixture();

  // --- sizes and shapes -----------------------------------------------------------------------

  describe('sizes and body shapes', () => {
    it('a string over 10 000 characters: 400 naming it', async () => {
      await refusedEverywhere({ type: 'title', string: 'x'.repeat(10_001) }, '/string');
    });

    it('a text over 1 000 000 characters (but under the 1 MiB body limit): 400 naming it', async () => {
      const res = await untouched(() => postTarget([{ type: 'summary', string: 'x'.repeat(1_000_001) }]));
      expectFieldError(res, { pointer: '/0/string' });
    });

    it('a text just over 1 MiB: 413', async () => {
      expectProblem(await untouched(() => postTarget([{ type: 'summary', string: 'x'.repeat(MIB + 1) }])), 413);
      const title = marker();
      const create = await untouched(() => createBook([{ type: 'title', string: title }, { type: 'summary', string: 'x'.repeat(MIB + 1) }]));
      expectProblem(create, 413);
      await expectNoNewEntity(t, title);
    });

    it('a body over 1 MiB made of many small values: 413', async () => {
      const values = Array.from({ length: 1000 }, (_, i) => ({ type: 'tag', string: `${i}-${'y'.repeat(1100)}` }));
      expect(JSON.stringify(values).length).toBeGreaterThan(MIB);
      expectProblem(await untouched(() => postTarget(values)), 413);
    });

    it('a gzip body that inflates past 1 MiB: 413 (the limit applies to the inflated body)', async () => {
      const json = JSON.stringify([{ type: 'summary', string: 'z'.repeat(8 * MIB) }]);
      const gz = gzipSync(json);
      expect(gz.length).toBeLessThan(64 * 1024);
      const res = await untouched(() => socketPost(entityPath(target._id), gz, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }));
      expectProblem(res, 413);
    });

    it('a chunked body (no Content-Length) over 1 MiB: 413', async () => {
      const res = await untouched(async () => asResponse(await chunkedPost(`${t.baseUrl}${entityPath(target._id)}`, t.owner.auth, 2 * MIB)));
      expectProblem(res, 413);
    });

    it('1001 values (over the 1000-item limit): 400', async () => {
      const values = Array.from({ length: 1001 }, (_, i) => ({ type: 'tag', string: `t${i}` }));
      expectFieldError(await untouched(() => postTarget(values)), { pointer: '' });
      const title = marker();
      const create = await untouched(() => createBook([{ type: 'title', string: title }, ...values.slice(1)]));
      expectFieldError(create, { pointer: '' });
      await expectNoNewEntity(t, title);
    });

    it.each<[string, string]>([
      ['an empty array', '[]'],
      ['an object instead of an array', '{"type":"title","string":"x"}'],
      ['an array-like object', '{"0":{"type":"title","string":"x"},"length":1}'],
      ['null', 'null'],
      ['a string', '"[{\\"type\\":\\"title\\",\\"string\\":\\"x\\"}]"'],
      ['a number', '42'],
      ['true', 'true'],
    ])('%s as the body: 400', async (_name, json) => {
      expectFieldError(await untouched(() => postRaw(entityPath(target._id), json)), { pointer: '' });
      expectFieldError(await untouched(() => postRaw(`/api/${t.db}/entity`, json)), { pointer: '' });
    });

    it.each<[string, unknown]>([
      ['null', null],
      ['an array', ['title', 'x']],
      ['a string', 'title'],
      ['a number', 42],
    ])('an item that is %s: 400 naming it', async (_name, item) => {
      // After a good value (update) or after _type (create): the bad item is /1 either way.
      expectFieldError(await untouched(() => postTarget([{ type: 'title', string: 'changed' }, item])), { pointer: '/1' });
      expectFieldError(await untouched(() => createBook([item]), []), { pointer: '/1' });
      await expectNoNewEntity(t);
    });

    it('a deeply nested body (100 000 levels, under the size limit): 400, not a crash', async () => {
      const depth = 100_000;
      const json = `[${'['.repeat(depth)}${']'.repeat(depth)}]`;
      expectProblem(await untouched(() => postRaw(entityPath(target._id), json)), 400);
    });

    it('a value with 10 000 unknown keys: 400 naming the first MAX_FIELD_ERRORS of them, not all', async () => {
      const item: Record<string, string> = { type: 'title', string: 'x' };
      for (let i = 0; i < 10_000; i++) item[`k${i}`] = '';
      const res = await untouched(() => postTarget([item]));
      expectProblem(res, 400);
      // The answer stays small however many keys were wrong (what the work is bounded by).
      expect(res.body.errors).toHaveLength(MAX_FIELD_ERRORS);
    });
  });

  describeAfterwards();
});
