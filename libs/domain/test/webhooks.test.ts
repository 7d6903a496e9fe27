import { assertMayManageWebhooks, checkWebhook, deliveryOf, isWebhookEntity, webhookOf, type ChangeRecord, type MetaTypes, type Properties } from '@entia/domain';
import { EDITOR, NOW, OWNER, STRANGER, VIEWER, caller, hexId, propertiesWith, thrown, val } from './fixtures';

/** The rules of a webhook entity (issue 18): who may manage one, what its values must be, and what the worker makes of it. */

const WEBHOOK_TYPE = hexId(0x905);
const META: MetaTypes = { entity: hexId(0x901), property: hexId(0x902), person: hexId(0x903), database: hexId(0x904), webhook: WEBHOOK_TYPE };
const SECRET = 'a-secret-of-24-characters';

function webhookProperties(values: { url?: string; secret?: string; filter?: string; active?: boolean } = {}): Properties {
  const { url = 'https://hooks.example.com/entia', secret = SECRET, filter, active } = values;
  return propertiesWith({
    type: WEBHOOK_TYPE,
    extra: {
      ...(url === '' ? {} : { url: [val('url', { string: url })] }),
      ...(secret === '' ? {} : { secret: [val('secret', { string: secret })] }),
      ...(filter === undefined ? {} : { filter: [val('filter', { string: filter })] }),
      ...(active === undefined ? {} : { active: [val('active', { boolean: active })] }),
      _created: [val('_created', { datetime: NOW, reference: OWNER })],
    },
  });
}

describe('isWebhookEntity', () => {
  it('knows a webhook by its _type', () => {
    expect(isWebhookEntity(META, webhookProperties())).toBe(true);
    expect(isWebhookEntity(META, propertiesWith())).toBe(false);
  });

  it('finds none in a database made before the meta-type existed', () => {
    const { webhook: _none, ...older } = META;
    expect(isWebhookEntity(older, webhookProperties())).toBe(false);
  });
});

describe('assertMayManageWebhooks: owners of the database entity only', () => {
  const database = propertiesWith({ sharing: 'domain' });
  it('lets an owner of the database through', () => expect(() => assertMayManageWebhooks(database, caller(OWNER))).not.toThrow());
  it.each([
    ['an editor of the database', EDITOR],
    ['a viewer', VIEWER],
    ['a person without a right', STRANGER],
  ])('refuses %s (403)', (_name, personId) => {
    expect(thrown(() => assertMayManageWebhooks(database, caller(personId))).kind).toBe('forbidden');
  });
  it('refuses when the database entity cannot be found', () => {
    expect(thrown(() => assertMayManageWebhooks(undefined, caller(OWNER))).kind).toBe('forbidden');
  });
});

describe('checkWebhook', () => {
  it.each<[string, Parameters<typeof webhookProperties>[0]]>([
    ['an https URL', {}],
    ['an http URL with a port, path and query', { url: 'http://127.0.0.1:8080/hook?x=1' }],
    ['a filter of the list syntax', { filter: `_type.reference=${hexId(0xb00c)}&pages.number.gte=100` }],
    ['an empty filter', { filter: '' }],
    ['a secret of exactly 16 characters', { secret: 'x'.repeat(16) }],
    ['inactive', { active: false }],
  ])('accepts %s', (_name, values) => {
    expect(() => checkWebhook(webhookProperties(values))).not.toThrow();
  });

  it.each<[string, Parameters<typeof webhookProperties>[0], RegExp]>([
    ['no url', { url: '' }, /"url" is mandatory/],
    ['a relative url', { url: '/hook' }, /"url" must be an absolute http or https URL/],
    ['a url that is no URL', { url: 'not a url' }, /"url" must be an absolute http or https URL/],
    ['another scheme', { url: 'ftp://example.com/hook' }, /"url" must be an absolute http or https URL/],
    ['a file url', { url: 'file:///etc/passwd' }, /"url" must be an absolute http or https URL/],
    ['credentials in the url', { url: 'https://user:pw@example.com/hook' }, /"url" must not carry credentials/],
    ['a user name alone in the url', { url: 'https://user@example.com/hook' }, /"url" must not carry credentials/],
    ['a url over 2048 characters', { url: `https://example.com/${'a'.repeat(2048)}` }, /"url" must be at most 2048 characters/],
    ['no secret', { secret: '' }, /"secret" is mandatory/],
    ['a secret of 15 characters', { secret: 'x'.repeat(15) }, /"secret" must be at least 16 characters/],
    ['a filter with an unknown operator', { filter: 'pages.number.near=3' }, /"filter" is not a filter .*pages\.number\.near/],
    ['a filter with a malformed value', { filter: 'pages.number.gte=many' }, /"filter" is not a filter/],
    ['a filter with an invalid regex', { filter: 'name.string.regex=/(/' }, /"filter" is not a filter/],
    ['a filter asking for props', { filter: 'props=name' }, /"filter" is not a filter .*props/],
    ['a filter with a list-only parameter', { filter: 'sort=name.string' }, /"filter" is not a filter .*sort/],
  ])('refuses %s (400)', (_name, values, message) => {
    const error = thrown(() => checkWebhook(webhookProperties(values)));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.message).join('\n')).toMatch(message);
  });

  it('names every problem at once', () => {
    const error = thrown(() => checkWebhook(webhookProperties({ url: 'ftp://x', secret: 'short', filter: 'a.number=x' })));
    expect(error.errors.map((e) => e.message.split(' ')[0])).toEqual(['"url"', '"secret"', '"filter"']);
  });

  it('points at the value the request wrote, else at the body', () => {
    const properties = webhookProperties({ secret: 'short' });
    const written = [val('name', { string: 'hook' }), properties.secret![0]!];
    expect(thrown(() => checkWebhook(properties, written)).errors).toEqual([{ pointer: '/1/string', message: expect.stringMatching(/^"secret"/) }]);
    expect(thrown(() => checkWebhook(properties)).errors).toEqual([{ pointer: '', message: expect.stringMatching(/^"secret"/) }]);
  });

  it('never echoes the secret', () => {
    const error = thrown(() => checkWebhook(webhookProperties({ secret: 'tooShortSecret', url: 'x' })));
    expect(JSON.stringify(error.errors)).not.toContain('tooShortSecret');
  });
});

describe('webhookOf', () => {
  it('is what the worker sends to: url, parsed filter, secret, owners, creation time', () => {
    const webhook = webhookOf({ _id: hexId(0x77), properties: webhookProperties({ filter: 'pages.number.gte=100' }) });
    expect(webhook).toEqual({
      id: hexId(0x77),
      url: 'https://hooks.example.com/entia',
      filters: [{ property: 'pages', field: 'number', op: 'gte', value: 100 }],
      secret: SECRET,
      active: true,
      owners: [OWNER],
      createdAt: NOW,
    });
  });

  it('is inactive only when active is false', () => {
    expect(webhookOf({ _id: hexId(0x77), properties: webhookProperties({ active: false }) })!.active).toBe(false);
    expect(webhookOf({ _id: hexId(0x77), properties: webhookProperties({ active: true }) })!.active).toBe(true);
  });

  it.each<[string, Parameters<typeof webhookProperties>[0]]>([
    ['without a url', { url: '' }],
    ['with a url of another scheme', { url: 'gopher://x' }],
    ['without a secret', { secret: '' }],
    ['with a filter that no longer parses', { filter: 'a.nope=1' }],
  ])('is undefined for an entity %s', (_name, values) => {
    expect(webhookOf({ _id: hexId(0x77), properties: webhookProperties(values) })).toBeUndefined();
  });

  it("sends what its owners may read, filtered: the change feed's rule", () => {
    const webhook = webhookOf({ _id: hexId(0x77), properties: webhookProperties({ filter: 'pages.number.gte=100' }) })!;
    const callers = webhook.owners.map((personId) => ({ personId }));
    const book = (pages: number, owner = OWNER) => ({ properties: propertiesWith({ owner: [owner], extra: { pages: [val('pages', { number: pages })] } }), partial: [] });
    const change = (before: ChangeRecord['before'], after: ChangeRecord['after']): ChangeRecord => ({
      key: 'k',
      entity: hexId(0xb1),
      type: hexId(0xe2),
      kind: before ? (after ? 'updated' : 'deleted') : 'created',
      version: 1,
      at: NOW,
      by: OWNER,
      properties: ['pages'],
      ...(before ? { before } : {}),
      ...(after ? { after } : {}),
    });
    expect(deliveryOf(change(undefined, book(120)), callers, webhook.filters)).toBe('in-view');
    expect(deliveryOf(change(undefined, book(50)), callers, webhook.filters)).toBeUndefined();
    expect(deliveryOf(change(book(120), book(50)), callers, webhook.filters)).toBe('left-view');
    // An entity its owners cannot read never reaches the webhook.
    const others = (pages: number) => ({ properties: propertiesWith({ owner: [STRANGER], editor: [], expander: [], viewer: [], extra: { pages: [val('pages', { number: pages })] } }), partial: [] });
    expect(deliveryOf(change(undefined, others(500)), callers, webhook.filters)).toBeUndefined();
  });
});
