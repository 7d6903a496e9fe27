import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * `readonly` (SPEC §5) holds for deletes as for writes: a value of a read-only property cannot be
 * deleted, by an editor or by the owner, and stays as it was.
 */
describe('readonly on delete', () => {
  let api: TestApi;
  let t: TestTenant;
  let editor: Person;
  let entityId: string;
  let codeId: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    editor = await t.newPerson('Edith Editor');
    const typeId = await t.defineType('part', [{ name: 'label', type: 'string' }]);
    // Written while it was writable, then made read-only: how a read-only value comes to exist.
    const code = await t.defineProperty(typeId, { name: 'code', type: 'string' });
    const created = await t.create([
      { type: '_type', reference: typeId },
      { type: 'code', string: 'X1' },
      { type: '_editor', reference: editor.id },
    ]);
    expect(created.status).toBe(201);
    entityId = created.body._id;
    codeId = created.body.properties.code[0]._id;
    const readonly = await request(api.app).post(`/api/${t.db}/entity/${code}`).set('Authorization', t.owner.auth).send([{ type: 'readonly', boolean: true }]);
    expect(readonly.status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const codes = async () => {
    const res = await request(api.app).get(`/api/${t.db}/entity/${entityId}`).set('Authorization', t.owner.auth);
    return res.body.entity.code.map((value: { string: string }) => value.string);
  };

  it('a write of the read-only property is refused (400)', async () => {
    const res = await request(api.app).post(`/api/${t.db}/entity/${entityId}`).set('Authorization', editor.auth).send([{ type: 'code', string: 'X2' }]);
    expect(res.status).toBe(400);
    expect(await codes()).toEqual(['X1']);
  });

  it.each([
    ['an editor', () => editor],
    ['the owner', () => t.owner],
  ])('%s cannot delete its value (400, as a write), and it stays', async (_who, by) => {
    const res = await request(api.app).delete(`/api/${t.db}/property/${codeId}`).set('Authorization', by().auth);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('urn:entia:problem:invalid-request');
    expect(res.body.detail).toBe('code is read-only.');
    expect(await codes()).toEqual(['X1']);
  });

  it('other values of the entity are still deleted as before', async () => {
    const added = await request(api.app).post(`/api/${t.db}/entity/${entityId}`).set('Authorization', editor.auth).send([{ type: 'label', string: 'L' }]);
    expect(added.status).toBe(200);
    const res = await request(api.app).delete(`/api/${t.db}/property/${added.body.properties[0]._id}`).set('Authorization', editor.auth);
    expect(res.status).toBe(200);
  });
});
