import request from 'supertest';
import { followToRedirect, startIdp, type Idp } from './oidc/idp';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// An invitation end to end as Entu's client carries it (issue 33, items 1 and 5): the owner's
// "Send invite" mails a link through the real SMTP server (the test stack's Mailpit); the invitee
// signs in with the real OpenID provider from the client's invite page (`next` carries the
// invitation), and `GET /api/auth?db=&invite=` with the one-time key binds that identity to the
// invited person — once.

const MAILPIT = process.env.ENTIA_TEST_MAILPIT_URL;
const SMTP_URL = process.env.ENTIA_TEST_SMTP_URL;
const PUBLIC_URL = 'http://entia.localhost';
const APP = 'http://app.localhost';
const CALLBACK = `${APP}/auth/callback`;
const SECRET = 'a-client-secret-of-the-test-provider';
const providerCallback = `${PUBLIC_URL}/api/auth/oidc/google/callback`;

let idp: Idp;
let api: TestApi;
let t: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  if (!MAILPIT || !SMTP_URL) throw new Error('ENTIA_TEST_MAILPIT_URL and ENTIA_TEST_SMTP_URL: run through the test stack (npm test)');
  idp = await startIdp({ clients: [{ client_id: 'entia', client_secret: SECRET, redirect_uris: [providerCallback] }] });
  api = testApi({
    PUBLIC_URL,
    OIDC_PROVIDERS: JSON.stringify({ google: { issuer: idp.issuer, clientId: 'entia', clientSecret: SECRET } }),
    OIDC_REDIRECT_URIS: CALLBACK,
    SMTP_URL,
    SMTP_FROM: 'Entia <invitations@entia.test>',
    APP_URL: APP,
    KEY_RECHECK_MS: '0',
  });
  [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([t?.close(), other?.close()]);
  await api?.close();
  await idp?.stop();
});

/** The link of the one message Mailpit took for `address`. */
async function linkMailedTo(address: string): Promise<URL> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const list = (await (await fetch(`${MAILPIT}/api/v1/messages?limit=500`)).json()) as { messages: { ID: string; To: { Address: string }[] }[] };
    const found = list.messages.find((message) => message.To.some((to) => to.Address === address));
    if (found) {
      const message = (await (await fetch(`${MAILPIT}/api/v1/message/${found.ID}`)).json()) as { Text: string };
      return new URL(/https?:\/\/\S+\/invite\?token=\S+/.exec(message.Text)![0]);
    }
    if (Date.now() > deadline) throw new Error(`no message to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the client's invite page and callback do: a provider sign-in whose `next` carries the invitation; the key it returns with. */
async function signInFromInvitation(loginHint: string, invitation: string): Promise<string> {
  const next = `${CALLBACK}?invite=${encodeURIComponent(invitation)}&key=`;
  const start = await request(api.app).get('/api/auth/google').query({ next, login_hint: loginHint });
  expect(start.status).toBe(302);
  const at = await followToRedirect(start.headers.location!, providerCallback);
  const back = await request(api.app).get(`${at.pathname}${at.search}`);
  const location: string = back.headers.location!;
  expect(location.startsWith(next)).toBe(true);
  return location.slice(next.length);
}

const accept = (key: string, db: string, invite: string) => request(api.app).get('/api/auth').query({ db, invite }).set('Authorization', `Bearer ${key}`);

it('an invitation mailed through SMTP signs its person in with a provider identity, once; the identity then signs in by itself', async () => {
  const email = `ines-${Date.now()}@entia.test`;
  const ines = await t.newPerson('Ines');
  await request(api.app).post(`/api/${t.db}/entity/${ines.id}`).set('Authorization', t.owner.auth).send([{ type: 'email', string: email }]).expect(200);
  const sent = await request(api.app).post(`/api/${t.db}/entity/${ines.id}`).set('Authorization', t.owner.auth).send([{ type: 'entu_user', string: 'send-invite' }]);
  expect(sent.status).toBe(200);

  const link = await linkMailedTo(email);
  expect(`${link.origin}${link.pathname}`).toBe(`${APP}/${t.db}/invite`);
  const invitation = link.searchParams.get('token')!;
  // What the client's callback decodes to learn the database.
  expect(JSON.parse(Buffer.from(invitation.split('.')[1]!, 'base64url').toString('utf8')).db).toBe(t.db);

  const accepted = await accept(await signInFromInvitation('ines-at-provider', invitation), t.db, invitation);
  expect(accepted.status).toBe(200);
  expect(accepted.body.accounts).toEqual([{ _id: t.db, name: t.db, user: { _id: ines.id, name: 'Ines' } }]);
  const own = await request(api.app).get(`/api/${t.db}/entity/${ines.id}`).set('Authorization', t.owner.auth);
  expect(own.body.entity._identity.map((value: { string: string }) => value.string)).toEqual([`${idp.issuer} ines-at-provider`]);

  // Used once: a second use (anyone's identity) is 401.
  expect((await accept(await signInFromInvitation('someone-else', invitation), t.db, invitation)).status).toBe(401);
  // Her identity now signs in by itself, no invitation needed.
  const again = await request(api.app).get('/api/auth').query({ db: t.db }).set('Authorization', `Bearer ${await signInFromInvitation('ines-at-provider', 'none')}`);
  expect([again.status, again.body.accounts[0].user._id]).toEqual([200, ines.id]);
});

it('refuses an invitation for another database, one sent with an API key or without a database, and a forged one: 401', async () => {
  const email = `olle-${Date.now()}@entia.test`;
  const olle = await t.newPerson('Olle');
  await request(api.app).post(`/api/${t.db}/entity/${olle.id}`).set('Authorization', t.owner.auth).send([{ type: 'email', string: email }]).expect(200);
  await request(api.app).post(`/api/${t.db}/entity/${olle.id}`).set('Authorization', t.owner.auth).send([{ type: 'entu_user', string: 'send-invite' }]).expect(200);
  const invitation = (await linkMailedTo(email)).searchParams.get('token')!;

  expect((await accept(await signInFromInvitation('olle', invitation), other.db, invitation)).status).toBe(401);
  expect((await request(api.app).get('/api/auth').query({ db: t.db, invite: invitation }).set('Authorization', `Bearer ${t.owner.apiKey}`)).status).toBe(401);
  expect((await request(api.app).get('/api/auth').query({ invite: invitation }).set('Authorization', `Bearer ${await signInFromInvitation('olle', invitation)}`)).status).toBe(401);
  const [header, payload] = invitation.split('.');
  expect((await accept(await signInFromInvitation('olle', invitation), t.db, `${header}.${payload}.${'A'.repeat(43)}`)).status).toBe(401);
  // None of those spent it: Olle accepts it now.
  const accepted = await accept(await signInFromInvitation('olle', invitation), t.db, invitation);
  expect([accepted.status, accepted.body.accounts?.[0]?.user?._id]).toEqual([200, olle.id]);
});
