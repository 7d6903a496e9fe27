import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/** Issue 33, item 7: Entu's rights drawer changes a person's level by sending their right value's `_id` under another right. */
describe('moving a person between right levels in one write', () => {
  let api: TestApi;
  let t: TestTenant;
  let noteType: string;
  let mari: Person;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    noteType = await t.defineType('note', [{ name: 'title', type: 'string' }]);
    mari = await t.newPerson('Mari');
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const write = (entity: string, values: object[], by: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/${entity}`).set('Authorization', by.auth).send(values);
  const read = async (entity: string, by: Person = t.owner) => (await request(api.app).get(`/api/${t.db}/entity/${entity}`).set('Authorization', by.auth)).body.entity;
  /** Mari's own (stored, not implied) right value on `entity`, and its level. */
  const mariRight = async (entity: string) => {
    const stored = await read(entity);
    return ['_owner', '_editor', '_expander', '_viewer'].flatMap((right) =>
      (stored[right] ?? []).filter((v: { reference: string; property_type?: string }) => v.reference === mari.id && v.property_type === undefined).map((v: { _id: string }) => ({ right, _id: v._id })),
    );
  };
  async function note(): Promise<string> {
    const res = await t.create([{ type: '_type', reference: noteType }, { type: 'title', string: 'shared' }]);
    await write(res.body._id, [{ type: '_viewer', reference: mari.id }]).expect(200);
    return res.body._id;
  }

  it("viewer → editor: the answer names the value under its new right, and Mari's writes now pass", async () => {
    const id = await note();
    expect((await write(id, [{ type: 'title', string: 'by Mari' }], mari)).status).toBe(403);
    const [viewer] = await mariRight(id);
    const res = await write(id, [{ _id: viewer!._id, type: '_editor', reference: mari.id }]);
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual([expect.objectContaining({ _id: viewer!._id, type: '_editor', reference: mari.id })]);
    expect(await mariRight(id)).toEqual([{ right: '_editor', _id: viewer!._id }]);
    expect((await write(id, [{ type: 'title', string: 'by Mari' }], mari)).status).toBe(200);
    // History tells the move as the two changes it is: the _viewer value gone, the _editor value there.
    const changes = (await request(api.app).get(`/api/${t.db}/entity/${id}/history`).set('Authorization', t.owner.auth)).body.changes;
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: '_viewer', old: expect.objectContaining({ _id: viewer!._id, reference: mari.id }) }),
        expect.objectContaining({ type: '_editor', new: expect.objectContaining({ _id: viewer!._id, reference: mari.id }) }),
      ]),
    );
  });

  it('the _id of an implied entry (shown cumulatively) moves the stored right it stands for', async () => {
    const id = await note();
    const [viewer] = await mariRight(id);
    await write(id, [{ _id: viewer!._id, type: '_editor', reference: mari.id }]).expect(200);
    // The drawer shows Mari under _viewer too (implied by _editor), with the same _id.
    const implied = (await read(id))._viewer.find((v: { reference: string }) => v.reference === mari.id);
    expect(implied).toMatchObject({ _id: viewer!._id, property_type: '_editor' });
    await write(id, [{ _id: implied._id, type: '_expander', reference: mari.id }]).expect(200);
    expect(await mariRight(id)).toEqual([{ right: '_expander', _id: viewer!._id }]);
  });

  it('an editor cannot move a viewer up (rights are written by owners): 403, nothing changed', async () => {
    const id = await note();
    const editor = await t.newPerson('Ed');
    await write(id, [{ type: '_editor', reference: editor.id }]).expect(200);
    const [viewer] = await mariRight(id);
    expect((await write(id, [{ _id: viewer!._id, type: '_editor', reference: mari.id }], editor)).status).toBe(403);
    expect(await mariRight(id)).toEqual([{ right: '_viewer', _id: viewer!._id }]);
  });

  it('the last owner cannot move down: 400, still owner', async () => {
    const id = await note();
    const owner = (await read(id))._owner.find((v: { property_type?: string }) => v.property_type === undefined);
    const res = await write(id, [{ _id: owner._id, type: '_editor', reference: owner.reference }]);
    expect(res.status).toBe(400);
    expect((await read(id))._owner.filter((v: { property_type?: string }) => v.property_type === undefined)).toEqual([owner]);
  });

  it.each([
    ['an _id that is no value here', () => '5f1d7a0c9b1e8a0012345601', 400],
    ['an invalid _id', () => 'nope', 400],
    ['a $-operator as the _id', () => ({ $ne: '' }), 400],
  ])('%s → %i, nothing changed', async (_name, id, status) => {
    const entity = await note();
    const before = await mariRight(entity);
    expect((await write(entity, [{ _id: id(), type: '_editor', reference: mari.id }])).status).toBe(status);
    expect(await mariRight(entity)).toEqual(before);
  });

  it('ten owners\' moves of one value at once: it ends at exactly one level, the others refused', async () => {
    const id = await note();
    const [viewer] = await mariRight(id);
    const levels = ['_editor', '_expander', '_owner', '_editor', '_expander', '_owner', '_editor', '_expander', '_owner', '_editor'];
    const answers = await Promise.all(levels.map((level) => write(id, [{ _id: viewer!._id, type: level, reference: mari.id }])));
    expect(answers.every((res) => [200, 400, 409].includes(res.status))).toBe(true);
    const now = await mariRight(id);
    expect(now).toHaveLength(1);
    // The level it ended at is the one the last acknowledged move asked for.
    expect(answers.some((res) => res.status === 200 && res.body.properties[0].type === now[0]!.right)).toBe(true);
  });
});
