import { startAuthentication, startRegistration } from '@simplewebauthn/browser';

// What Entu's web client does with passkeys (its pages auth/passkey.vue and [account]/passkey.vue),
// written for this test: options from Entia's Entu-shaped routes, the ceremony by
// @simplewebauthn/browser (as the client uses it), the answer sent back spread at the top level
// with the options' `challengeToken`. Bundled by esbuild and loaded in a page whose passkey
// prompts Chromium's virtual authenticator answers (passkeys-entu.test.ts).

interface Answer {
  status: number;
  body: unknown;
  /** What the page POSTed (the test replays or tampers with it). */
  sent?: Record<string, unknown>;
}

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

const entu = {
  /** A signed-in person adds a passkey, naming the device, as the client's passkey page does. */
  async register(api: string, token: string, db: string, forgedToken?: string): Promise<Answer> {
    const auth = { Authorization: `Bearer ${token}` };
    const options = await call(`${api}/api/${db}/passkey`, { headers: auth });
    if (options.status !== 200) return options;
    const credential = await startRegistration({ optionsJSON: options.body });
    const sent = { ...credential, challengeToken: forgedToken ?? options.body.challengeToken, deviceName: 'Test laptop' };
    return { ...(await call(`${api}/api/${db}/passkey`, { method: 'POST', headers: auth, body: JSON.stringify(sent) })), sent };
  },
  /**
   * Signs in with a passkey, no database named, as the client's sign-in page does. The test may
   * forge the token sent back, ask the options for a database (`?db=`), or name one in the answer.
   */
  async signIn(api: string, how: { forgedToken?: string; optionsFor?: string; answerFor?: string } = {}): Promise<Answer> {
    const options = await call(`${api}/api/auth/passkey${how.optionsFor === undefined ? '' : `?db=${encodeURIComponent(how.optionsFor)}`}`);
    if (options.status !== 200) return options;
    const credential = await startAuthentication({ optionsJSON: options.body });
    const sent = { ...credential, challengeToken: how.forgedToken ?? options.body.challengeToken, ...(how.answerFor === undefined ? {} : { db: how.answerFor }) };
    return { ...(await call(`${api}/api/auth/passkey`, { method: 'POST', body: JSON.stringify(sent) })), sent };
  },
};

/** What the page offers the test, on `globalThis.entu`. */
export type EntuPasskeys = typeof entu;

const page = globalThis as unknown as { entu?: EntuPasskeys; document: { body: { dataset: Record<string, string | undefined> } } };
page.entu = entu;
page.document.body.dataset.ready = 'true';
