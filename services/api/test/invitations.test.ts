import { closeDeps, createApp, createLogger, openDeps } from '@entia/api';
import { parseJwtSecrets } from '@entia/config';
import { DomainError, identityValue, invitationClaims, type Identity } from '@entia/domain';
import { InvitationKeys, acceptInvitation, signInWithIdentity, type Tenant } from '@entia/entities';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Tenants } from '../src/tenancy';
import { testConfig, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * Issue 33, item 5: invitations. Entu's client sends `[{type: 'entu_user', string: 'send-invite'}]`
 * to a person; the person's e-mail gets a link with a single-use, expiring token, through a real
 * SMTP server (the test stack's Mailpit, read back through its HTTP API); without SMTP_URL the
 * inviter gets the token once. Accepting it binds a provider identity to the person, once.
 */

const MAILPIT = process.env.ENTIA_TEST_MAILPIT_URL;
const SMTP_URL = process.env.ENTIA_TEST_SMTP_URL;
const APP_URL = 'https://app.entia.test';

interface LoggedApi extends TestApi {
  lines: string[];
}

function loggedApi(overrides: Record<string, string>): LoggedApi {
  const lines: string[] = [];
  const config = testConfig({ RATE_LIMIT_MAX: '1000000', ...overrides });
  const deps = openDeps(config, createLogger('trace', { write: (line: string) => void lines.push(line) }));
  return { app: createApp(deps), deps, lines, close: () => closeDeps(deps) };
}

interface MailpitMessage {
  ID: string;
  To: { Address: string }[];
  Subject: string;
}

/** The one message Mailpit took for `address`, with its text and HTML, waiting a little for it. */
async function deliveredTo(address: string): Promise<{ Subject: string; Text: string; HTML: string; To: { Address: string }[]; From: { Address: string } }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const list = (await (await fetch(`${MAILPIT}/api/v1/messages?limit=500`)).json()) as { messages: MailpitMessage[] };
    const found = list.messages.filter((message) => message.To.some((to) => to.Address === address));
    if (found.length > 1) throw new Error(`${found.length} messages to ${address}`);
    if (found.length === 1) return (await fetch(`${MAILPIT}/api/v1/message/${found[0]!.ID}`)).json() as never;
    if (Date.now() > deadline) throw new Error(`no message to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function messagesTo(address: string): Promise<number> {
  const list = (await (await fetch(`${MAILPIT}/api/v1/messages?limit=500`)).json()) as { messages: MailpitMessage[] };
  return list.messages.filter((message) => message.To.some((to) => to.Address === address)).length;
}

const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
const someIdentity = (): Identity => ({ issuer: 'https://id.entia.test', sub: `user-${randomBytes(6).toString('hex')}` });
const profile = { name: 'Someone', email: 'someone@elsewhere.test', emailVerified: true };
const address = (name: string) => `${name}-${randomBytes(4).toString('hex')}@entia.test`;

/** The DomainError a use case rejects with (the API answers its kind: unauthenticated 401, conflict 409). */
async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('invitations (issue 33, item 5)', () => {
  let mail: LoggedApi;
  let plain: LoggedApi;
  let t: TestTenant;
  let other: TestTenant;
  let p: TestTenant;
  const tenantOf = (api: TestApi, db: string): Promise<Tenant> => new Tenants(api.deps.store, api.deps.config.MONGODB_CONTROL_DB).resolve(db, undefined);

  beforeAll(async () => {
    if (!MAILPIT || !SMTP_URL) throw new Error('ENTIA_TEST_MAILPIT_URL and ENTIA_TEST_SMTP_URL: run through the test stack (npm test)');
    // With credentials in the URL: Mailpit takes any, and they must never reach the log.
    const withLogin = SMTP_URL.replace('smtp://', 'smtp://inviter:smtp-password-0123@');
    mail = loggedApi({ SMTP_URL: withLogin, SMTP_FROM: 'Entia <invitations@entia.test>', APP_URL });
    plain = loggedApi({ APP_URL });
    t = await testTenant(mail);
    other = await testTenant(mail);
    p = await testTenant(plain);
  });
  afterAll(async () => {
    await Promise.all([t.close(), other.close(), p.close()]);
    await Promise.all([mail.close(), plain.close()]);
  });

  const write = (api: TestApi, tt: TestTenant, entity: string, values: unknown, by: Person = tt.owner) =>
    request(api.app).post(`/api/${tt.db}/entity/${entity}`).set('Authorization', by.auth).set('Content-Type', 'application/json').send(values as object);
  const invite = (api: TestApi, tt: TestTenant, person: string, by: Person = tt.owner) => write(api, tt, person, [{ type: 'entu_user', string: 'send-invite' }], by);
  const personWithEmail = async (api: TestApi, tt: TestTenant, name: string, email?: string) => {
    const person = await tt.newPerson(name);
    if (email) await write(api, tt, person.id, [{ type: 'email', string: email }]).expect(200);
    return person;
  };
  const identitiesOf = async (api: TestApi, tt: TestTenant, id: string) =>
    ((await request(api.app).get(`/api/${tt.db}/entity/${id}`).set('Authorization', tt.owner.auth)).body.entity._identity ?? []).map((value: { string: string }) => value.string);

  /** Sends an invitation by e-mail and reads its token back from the delivered message. */
  async function invitedByMail(name: string): Promise<{ person: Person; email: string; token: string }> {
    const email = address(name);
    const person = await personWithEmail(mail, t, name, email);
    await invite(mail, t, person.id).expect(200);
    const message = await deliveredTo(email);
    const token = /invite\?token=([A-Za-z0-9_.-]+)/.exec(message.Text)![1]!;
    return { person, email, token };
  }

  it('is e-mailed through the SMTP server to the person\'s e-mail, with the link to the app; the answer holds no token', async () => {
    const email = address('mari');
    const person = await personWithEmail(mail, t, 'Mari', email);
    const res = await invite(mail, t, person.id);
    expect(res.status).toBe(200);
    expect(res.body._id).toBe(person.id);
    // What Entu's client reads: the entu_user value's _id (and, for "pending", invite and email).
    expect(res.body.properties).toEqual([expect.objectContaining({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), type: 'entu_user', email, invite: '***' })]);
    expect(res.body.properties[0].url).toBeUndefined();

    const message = await deliveredTo(email);
    expect(message.To.map((to) => to.Address)).toEqual([email]);
    expect(message.From.Address).toBe('invitations@entia.test');
    expect(message.Subject).toContain(t.db);
    const link = new RegExp(`${APP_URL.replace(/\./g, '\\.')}/${t.db}/invite\\?token=([A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)`).exec(message.Text);
    expect(link).not.toBeNull();
    const token = link![1]!;
    expect(message.HTML).toContain(`${APP_URL}/${t.db}/invite?token=${token}`);
    expect(message.Text).toContain('Owner');
    expect(message.Subject).not.toContain(token);
    // Entu's client decodes the token to learn the database.
    expect(payloadOf(token)).toMatchObject({ db: t.db, person: person.id, aud: 'entia-invitation' });
    expect((payloadOf(token).exp as number) - (payloadOf(token).iat as number)).toBe(24 * 60 * 60);
    // Nothing stored on the person: the invitation is no value.
    const read = await request(mail.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth);
    expect(JSON.stringify(read.body)).not.toContain(token);
    expect(read.body.entity.entu_user).toBeUndefined();
  });

  it('used once: binds the identity to the invited person and signs in as them; the second use is 401', async () => {
    const { person, token } = await invitedByMail('Jaan');
    const tenant = await tenantOf(mail, t.db);
    const identity = someIdentity();
    const signIn = await acceptInvitation(mail.deps, tenant, token, identity, profile);
    expect(signIn).toMatchObject({ db: t.db, person: { _id: person.id, name: 'Jaan' } });
    expect(await identitiesOf(mail, t, person.id)).toEqual([identityValue(identity)]);
    // The identity now signs in as the person by itself.
    expect(await signInWithIdentity(mail.deps, tenant, identity, profile)).toMatchObject({ person: { _id: person.id } });

    const again = await refusal(acceptInvitation(mail.deps, tenant, token, someIdentity(), profile));
    expect(again.kind).toBe('unauthenticated');
    const sameAgain = await refusal(acceptInvitation(mail.deps, tenant, token, identity, profile));
    expect(sameAgain.kind).toBe('unauthenticated');
    expect(await identitiesOf(mail, t, person.id)).toEqual([identityValue(identity)]);
  });

  it('ten acceptances at once: exactly one binds', async () => {
    const { person, token } = await invitedByMail('Race');
    const tenant = await tenantOf(mail, t.db);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => acceptInvitation(mail.deps, tenant, token, someIdentity(), profile)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ kind: 'unauthenticated' });
    expect(await identitiesOf(mail, t, person.id)).toHaveLength(1);
  });

  it('an identity already bound to this person is fine; one bound to another person is 409 and leaves the invitation usable', async () => {
    const tenant = await tenantOf(mail, t.db);
    const first = await invitedByMail('First');
    const identity = someIdentity();
    await acceptInvitation(mail.deps, tenant, first.token, identity, profile);
    const second = await invitedByMail('Second');
    const taken = await refusal(acceptInvitation(mail.deps, tenant, second.token, identity, profile));
    expect(taken.kind).toBe('conflict');
    expect(await identitiesOf(mail, t, second.person.id)).toEqual([]);
    const own = someIdentity();
    expect(await acceptInvitation(mail.deps, tenant, second.token, own, profile)).toMatchObject({ person: { _id: second.person.id } });

    // Invited again, the first person accepts with the identity they already have.
    await invite(mail, t, first.person.id).expect(200);
    const messages = await (await fetch(`${MAILPIT}/api/v1/messages?limit=500`)).json() as { messages: (MailpitMessage & { Created: string })[] };
    const latest = messages.messages.filter((message) => message.To.some((to) => to.Address === first.email)).sort((a, b) => b.Created.localeCompare(a.Created))[0]!;
    const text = ((await (await fetch(`${MAILPIT}/api/v1/message/${latest.ID}`)).json()) as { Text: string }).Text;
    const again = /invite\?token=([A-Za-z0-9_.-]+)/.exec(text)![1]!;
    expect(again).not.toBe(first.token);
    expect(await acceptInvitation(mail.deps, tenant, again, identity, profile)).toMatchObject({ person: { _id: first.person.id } });
    expect(await identitiesOf(mail, t, first.person.id)).toEqual([identityValue(identity)]);
  });

  it('refuses with 401 a token for another database, a forged, a tampered, an expired or a malformed one', async () => {
    const { person, token } = await invitedByMail('Kati');
    const otherTenant = await tenantOf(mail, other.db);
    const tenant = await tenantOf(mail, t.db);
    const keys = new InvitationKeys(parseJwtSecrets(mail.deps.config));
    const forger = new InvitationKeys([{ kid: 'default', secret: randomBytes(32).toString('base64url') }]);
    const now = Math.floor(Date.now() / 1000);
    const [header, , signature] = token.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...payloadOf(token), person: t.owner.id })).toString('base64url')}.${signature}`;
    const cases: [string, Tenant, string][] = [
      ['for another database', otherTenant, token],
      ['signed with another secret', tenant, forger.sign(invitationClaims(t.db, person.id, 'a'.repeat(24), now))],
      ['with its payload changed', tenant, tampered],
      ['expired', tenant, keys.sign(invitationClaims(t.db, person.id, 'b'.repeat(24), now - 2 * 24 * 60 * 60))],
      ['signed by us but never issued', tenant, keys.sign(invitationClaims(t.db, person.id, 'c'.repeat(24), now))],
      ['unsigned', tenant, `${header}.${token.split('.')[1]}.`],
      ['an API token', tenant, t.owner.token],
      ['not a token at all', tenant, 'not-a-token'],
      ['a $-operator as text', tenant, '{"$ne":""}'],
      ['__proto__', tenant, '__proto__'],
    ];
    for (const [name, where, presented] of cases) {
      const refused = await refusal(acceptInvitation(mail.deps, where, presented, someIdentity(), profile));
      expect([name, refused.kind]).toEqual([name, 'unauthenticated']);
    }
    // None of that spent the real invitation.
    expect(await acceptInvitation(mail.deps, tenant, token, someIdentity(), profile)).toMatchObject({ person: { _id: person.id } });
  });

  it('without SMTP_URL, the link is answered once to the inviter and nothing is e-mailed', async () => {
    const email = address('ilves');
    const person = await personWithEmail(plain, p, 'Ilves', email);
    const res = await invite(plain, p, person.id);
    expect(res.status).toBe(200);
    const [value] = res.body.properties;
    expect(value).toMatchObject({ type: 'entu_user', email, invite: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
    expect(value.url).toBe(`${APP_URL}/${p.db}/invite?token=${value.invite}`);
    expect(payloadOf(value.invite)).toMatchObject({ db: p.db, person: person.id });
    // Not kept where it could be read again.
    const read = await request(plain.app).get(`/api/${p.db}/entity/${person.id}`).set('Authorization', p.owner.auth);
    expect(JSON.stringify(read.body)).not.toContain(value.invite);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await messagesTo(email)).toBe(0);
    const tenant = await tenantOf(plain, p.db);
    expect(await acceptInvitation(plain.deps, tenant, value.invite, someIdentity(), profile)).toMatchObject({ person: { _id: person.id } });
    expect((await refusal(acceptInvitation(plain.deps, tenant, value.invite, someIdentity(), profile))).kind).toBe('unauthenticated');
  });

  it('an SMTP server that does not answer: 503, the invitation withdrawn, nothing written', async () => {
    const down = loggedApi({ SMTP_URL: 'smtp://127.0.0.1:1', SMTP_FROM: 'invitations@entia.test', APP_URL });
    try {
      const d = await testTenant(down);
      const person = await personWithEmail(down, d, 'Unlucky', address('unlucky'));
      const before = (await request(down.app).get(`/api/${d.db}/entity/${person.id}`).set('Authorization', d.owner.auth)).body;
      const res = await invite(down, d, person.id);
      expect(res.status).toBe(503);
      expect(res.body.properties).toBeUndefined();
      const after = (await request(down.app).get(`/api/${d.db}/entity/${person.id}`).set('Authorization', d.owner.auth)).body;
      expect(after).toEqual(before);
      expect(down.lines.some((line) => line.includes('invitation e-mail not sent'))).toBe(true);
      expect(down.lines.join('\n')).not.toMatch(/invite\?token=|eyJ[\w-]+\.eyJ/);
      await d.close();
    } finally {
      await down.close();
    }
  });

  describe('refused with a clear 4xx, nothing sent', () => {
    it('a person without e-mail: 400', async () => {
      const person = await personWithEmail(mail, t, 'Nomail');
      const res = await invite(mail, t, person.id);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/e-mail/);
    });

    it('an e-mail that is no address (a header injection): 400, nothing sent', async () => {
      const person = await personWithEmail(mail, t, 'Bad', 'victim@entia.test\r\nBcc: attacker@entia.test');
      expect((await invite(mail, t, person.id)).status).toBe(400);
      expect(await messagesTo('attacker@entia.test')).toBe(0);
    });

    it('no right on the person: 404; a viewer or an editor: 403; the person themselves without the owner right: 403', async () => {
      const email = address('target');
      const target = await personWithEmail(mail, t, 'Target', email);
      const stranger = await t.newPerson('Stranger');
      const viewer = await t.newPerson('Viewer');
      const editor = await t.newPerson('Editor');
      await write(mail, t, target.id, [{ type: '_viewer', reference: viewer.id }, { type: '_editor', reference: editor.id }]).expect(200);
      expect((await invite(mail, t, target.id, stranger)).status).toBe(404);
      expect((await invite(mail, t, target.id, viewer)).status).toBe(403);
      expect((await invite(mail, t, target.id, editor)).status).toBe(403);
      expect((await invite(mail, t, target.id, target)).status).toBe(403);
      expect((await request(mail.app).post(`/api/${t.db}/entity/${target.id}`).send([{ type: 'entu_user', string: 'send-invite' }])).status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await messagesTo(email)).toBe(0);
    });

    it('an invitation in another database than the token\'s: 403; to an unknown entity: 404; to a non-person: 400', async () => {
      const email = address('elsewhere');
      const person = await personWithEmail(mail, t, 'Elsewhere', email);
      const res = await request(mail.app).post(`/api/${other.db}/entity/${person.id}`).set('Authorization', t.owner.auth).send([{ type: 'entu_user', string: 'send-invite' }]);
      expect(res.status).toBe(403);
      expect((await invite(mail, other, person.id, other.owner)).status).toBe(404);
      expect((await invite(mail, t, '0123456789abcdef01234567')).status).toBe(404);
      expect((await invite(mail, t, 'not-an-id')).status).toBe(404);
      const typeId = await t.defineType('note', [{ name: 'email', type: 'string' }]);
      const note = (await t.create([{ type: '_type', reference: typeId }, { type: 'email', string: address('note') }])).body._id;
      expect((await invite(mail, t, note)).status).toBe(400);
      expect(await messagesTo(email)).toBe(0);
    });

    it.each<[string, unknown]>([
      ['another string', [{ type: 'entu_user', string: 'self-invite' }]],
      ['no string', [{ type: 'entu_user' }]],
      ['an _id', [{ type: 'entu_user', string: 'send-invite', _id: '0123456789abcdef01234567' }]],
      ['an e-mail of the sender\'s choosing', [{ type: 'entu_user', string: 'send-invite', email: 'attacker@entia.test' }]],
      ['beside another value', [{ type: 'name', string: 'Renamed' }, { type: 'entu_user', string: 'send-invite' }]],
      ['twice', [{ type: 'entu_user', string: 'send-invite' }, { type: 'entu_user', string: 'send-invite' }]],
      ['a $-operator as its string', [{ type: 'entu_user', string: { $ne: '' } }]],
      ['a $-operator beside it', [{ type: 'entu_user', string: 'send-invite', $where: '1' }]],
      ['__proto__ beside it', JSON.parse('[{"type": "entu_user", "string": "send-invite", "__proto__": {"string": "x"}}]')],
      ['__proto__ as the type', JSON.parse('[{"type": "__proto__", "string": "send-invite"}]')],
      ['an object, not a list', { type: 'entu_user', string: 'send-invite' }],
    ])('entu_user with %s: 400, nothing written or sent', async (_name, body) => {
      const email = address('hostile');
      const person = await personWithEmail(mail, t, 'Hostile', email);
      const before = (await request(mail.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth)).body;
      const res = await write(mail, t, person.id, body);
      expect(res.status).toBe(400);
      expect(res.body.properties).toBeUndefined();
      expect((await request(mail.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth)).body).toEqual(before);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await messagesTo(email)).toBe(0);
      expect(await messagesTo('attacker@entia.test')).toBe(0);
    });

    it('entu_user when creating an entity: 400', async () => {
      const res = await t.create([{ type: '_type', reference: t.types.person }, { type: 'name', string: 'New' }, { type: 'entu_user', string: 'send-invite' }]);
      expect(res.status).toBe(400);
    });
  });

  it('the logs name the invitation\'s person and database, never its token, link or the SMTP password', async () => {
    const { person, token } = await invitedByMail('Logged');
    const sent = mail.lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'invitation e-mailed' && line.person === person.id);
    expect(sent).toMatchObject({ db: t.db, person: person.id, invitation: expect.any(String) });
    // As Entu's client would present it after a provider sign-in; the lead's route logs this URL.
    await request(mail.app).get(`/api/auth?db=${t.db}&invite=${token}`);
    await request(plain.app).get(`/api/auth?db=${p.db}&invite=${token}`);
    const answered = await invite(plain, p, (await personWithEmail(plain, p, 'Shown', address('shown'))).id);
    const shown = answered.body.properties[0].invite as string;
    for (const [which, lines] of [['mail', mail.lines], ['plain', plain.lines]] as const) {
      const log = lines.join('\n');
      expect([which, log.includes(token)]).toEqual([which, false]);
      expect([which, log.includes(shown)]).toEqual([which, false]);
      expect([which, /invite\?token=/.test(log)]).toEqual([which, false]);
      expect([which, log.includes(token.split('.')[2]!)]).toEqual([which, false]);
      expect([which, log.includes('smtp-password-0123')]).toEqual([which, false]);
    }
    expect(plain.lines.some((line) => line.includes('invitation made and answered to the inviter'))).toBe(true);
  });
});
