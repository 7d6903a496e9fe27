import { startAuthentication, startRegistration, WebAuthnAbortService } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import type { RequestOptions } from './client';
import type { EntiaDatabase } from './database';
import { toError } from './transport';
import type { AuthResult, Value, WriteResult } from './types';

// Passkeys (WebAuthn) in a browser page: the ceremonies are @simplewebauthn/browser's (inlined in
// the build, like the SDK's other dependency), the server's answers are checked by the API. No type
// of that library appears in the SDK's public signatures, so its declarations need nothing installed.

/** What `signInWithPasskey` needs: where the API is, and the database to sign in to. */
export interface PasskeySignInOptions {
  /** The API's base URL, as given to `EntiaClient`. */
  baseUrl: string;
  /** The database whose person the passkey belongs to. */
  db: string;
  /** Aborts the sign-in, the browser's passkey prompt included; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Signs in with a passkey of a person of `db`, in a browser page: asks the API for a challenge
 * (`POST /api/auth/passkey/options`), lets the browser ask the user to pick a passkey and sign it,
 * and sends the signature (`POST /api/auth/passkey`). Answers like `client.auth()`: the database
 * and the person, and a JWT to give to `new EntiaClient({ baseUrl, token })`.
 *
 * A refused passkey (unknown or deleted, another page's origin, a repeated answer) is an
 * `EntiaError` with status 401; the user cancelling the prompt rejects with the browser's error.
 * Never retried: each challenge is good for one answer only.
 */
export async function signInWithPasskey(options: PasskeySignInOptions): Promise<AuthResult> {
  const { db, signal } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const optionsJSON = await post<PublicKeyCredentialRequestOptionsJSON>(`${base}/api/auth/passkey/options`, { db }, signal);
  const response = await ceremony(() => startAuthentication({ optionsJSON }), signal);
  return post<AuthResult>(`${base}/api/auth/passkey`, { db, response }, signal);
}

/**
 * In a browser page: a new passkey for the person `db`'s client is signed in as. Asks the API for
 * creation options (`POST /api/{db}/passkeys/options`; they name the person's passkeys, so an
 * authenticator that holds one already is not asked for a second), lets the browser make the
 * passkey, and stores it (`POST /api/{db}/passkeys`). Returns the `_passkey` value now on the
 * person's entity (its `string` is the credential id); deleting it (`db.deleteProperty`) revokes
 * the passkey and, within the server's recheck time, the tokens it gave. `idempotencyKey` applies
 * to the storing POST. A function rather than a method of `EntiaDatabase`, so that a bundle without
 * passkeys leaves the WebAuthn code out.
 */
export async function registerPasskey(db: EntiaDatabase, options: RequestOptions = {}): Promise<Value> {
  const base = `/api/${encodeURIComponent(db.name)}/passkeys`;
  const { idempotencyKey: _storing, ...call } = options;
  const optionsJSON = await db.client.request<PublicKeyCredentialCreationOptionsJSON>('POST', `${base}/options`, {}, call);
  const response = await ceremony(() => startRegistration({ optionsJSON }), options.signal);
  const result = await db.client.request<WriteResult>('POST', base, { response }, options);
  const value = result?.properties?._passkey?.[0];
  if (!value) throw new Error('the API answered without the new _passkey value');
  return value;
}

/**
 * A POST without credentials or retries: a sign-in's challenge is single-use, so repeating the
 * answer after a lost response would only be refused.
 */
async function post<T>(url: string, body: unknown, signal: AbortSignal | undefined): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw await toError(response);
  return (await response.json()) as T;
}

/**
 * The browser's prompt, ended when `signal` aborts: the library runs one ceremony at a time under
 * an abort controller of its own, which is the only way to close the prompt.
 */
async function ceremony<T>(run: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return run();
  signal.throwIfAborted();
  const cancel = () => WebAuthnAbortService.cancelCeremony();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await run();
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
