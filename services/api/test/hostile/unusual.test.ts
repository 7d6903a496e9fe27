import request from 'supertest';
import { api, asOwner, createBook, describeAfterwards, entityPath, expectProblem, expectUnpolluted, postRaw, t, useHostileFixture } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): inputs that are valid but unusual. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: inputs that are valid but unusual', () => {
  useHostileFixture();

  describe('inputs that are valid but unusual: written exactly, or refused cleanly', () => {
    /** A fresh book to write to, so these writes never touch the watched entities. */
    const scratch = async () => {
      const res = await createBook([{ type: 'title', string: 'scratch' }]);
      expect(res.status).toBe(201);
      return res.body._id as string;
    };

    /**
     * Names such as `constructor` are valid property names (SPEC §2): a type defines them, and
     * writing and reading them must never reach Object.prototype.
     */
    it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
      'a property named %s: defined; its values written and read back, never a 500',
      async (name) => {
        const typeRes = await t.create([
          { type: '_type', reference: t.types.entity },
          { type: 'name', string: `odd_${name}` },
        ]);
        expect(typeRes.status).toBe(201);
        const typeId: string = typeRes.body._id;
        const definition = await t.create([
          { type: '_type', reference: t.types.property },
          { type: '_parent', reference: typeId },
          { type: 'name', string: name },
          { type: 'type', string: 'string' },
        ]);
        expect({ status: definition.status, body: definition.body }).toMatchObject({ status: 201 });
        const created = await t.create([{ type: '_type', reference: typeId }, { type: name, string: 'first' }]);
        expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
        const id: string = created.body._id;
        const updated = await asOwner(request(api.app).post(entityPath(id))).send([{ type: name, string: 'second' }]);
        expect({ status: updated.status, body: updated.body }).toMatchObject({ status: 200 });
        const read = await asOwner(request(api.app).get(`${entityPath(id)}?props=${name}`));
        expect(read.status).toBe(200);
        expect(read.body.entity).toEqual({ _id: id, [name]: [expect.objectContaining({ type: name, string: 'second' })] });
        expectUnpolluted();
      },
    );
    it('a string with a lone surrogate is refused (400), never stored altered', async () => {
      const res = await postRaw(entityPath(await scratch()), '[{"type":"tag","string":"a\\ud800b"}]');
      expectProblem(res, 400);
    });
    /**
     * RFC 8259 §8.1: senders MUST NOT add a byte order mark; receivers MAY ignore one. This API
     * does not: a body with a BOM is refused with 400.
     */
    it('JSON with a byte order mark: 400', async () => {
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify([{ type: 'tag', string: 'bom' }]))]);
      const res = await postRaw(entityPath(await scratch()), bom);
      expectProblem(res, 400);
    });

  });

  describeAfterwards({ writes: true });
});
