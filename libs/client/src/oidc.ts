import { toError } from './transport';
import type { AuthResult } from './types';

/** What a sign-in returns to the app with. */
const RETURN_PARAMETERS = ['entia_code', 'state', 'error', 'error_description'];

/** Where a browser app keeps the state of the sign-in under way, between leaving and coming back. */
const STATE_KEY = 'entia:oidc-state';

/** What the browser helpers use of a page's globals (the SDK is typed without the DOM library: it runs in Node too). */
interface Page {
  location: { href: string; assign(url: string): void };
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };
  history: { state: unknown; replaceState(state: unknown, unused: string, url: string): void };
}

function page(): Page | undefined {
  const scope = globalThis as Partial<Page>;
  return scope.location && scope.sessionStorage && scope.history ? (scope as Page) : undefined;
}

function inPage(): Page {
  const found = page();
  if (!found) throw new Error('signInWithOidc runs in a browser page; elsewhere use oidcSignInUrl');
  return found;
}

export interface OidcSignInOptions {
  /** The API's base URL. */
  baseUrl: string;
  /** A provider of the server's `OIDC_PROVIDERS`. */
  provider: string;
  /** The database to sign in to. */
  db: string;
  /** Where the sign-in returns to: exactly one of the server's `OIDC_REDIRECT_URIS`. */
  redirect: string;
  /** Passed on to the provider (e.g. the e-mail address to sign in with). */
  loginHint?: string;
}

/**
 * The address that starts an OpenID Connect sign-in, with a fresh random `state` of the app's own:
 * keep it, and compare it with the `state` the sign-in returns with (`completeOidcSignIn` does),
 * so that a sign-in somebody else started cannot be slipped into your page.
 */
export function oidcSignInUrl(options: OidcSignInOptions): { url: string; state: string } {
  const state = randomState();
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/api/auth/oidc/${encodeURIComponent(options.provider)}`);
  url.searchParams.set('db', options.db);
  url.searchParams.set('redirect', options.redirect);
  url.searchParams.set('state', state);
  if (options.loginHint !== undefined) url.searchParams.set('login_hint', options.loginHint);
  return { url: url.href, state };
}

/**
 * In a browser: starts an OpenID Connect sign-in by leaving the page for the provider. Its state
 * is kept in `sessionStorage` for `completeOidcSignIn` on the redirect page.
 */
export function signInWithOidc(options: OidcSignInOptions): void {
  const browser = inPage();
  const { url, state } = oidcSignInUrl(options);
  browser.sessionStorage.setItem(STATE_KEY, state);
  browser.location.assign(url);
}

/** A sign-in that came back refused (`error`, `error_description`), or with a state that is not this app's. */
export class OidcSignInError extends Error {
  override readonly name = 'OidcSignInError';

  constructor(
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

/**
 * On the redirect page: reads the one-time code the sign-in returned with, checks its `state`
 * (`expectedState`, else the one `signInWithOidc` kept), and exchanges the code for
 * `{accounts, token}` (`POST /api/auth/oidc/token`). In a browser it first removes what the sign-in
 * returned with from the address bar, so a reload or a shared link does not carry it.
 */
export async function completeOidcSignIn(options: { baseUrl: string; url?: string; expectedState?: string; signal?: AbortSignal }): Promise<AuthResult> {
  const browser = page();
  if (!browser && (options.url === undefined || options.expectedState === undefined)) {
    throw new Error('completeOidcSignIn outside a browser page needs `url` and `expectedState`');
  }
  const url = new URL(options.url ?? browser!.location.href);
  const expected = options.expectedState ?? browser!.sessionStorage.getItem(STATE_KEY);
  if (options.expectedState === undefined) browser!.sessionStorage.removeItem(STATE_KEY);
  // Whatever the outcome, a reload or a shared link must not carry the code (another's, in a login CSRF) or the error.
  if (browser && options.url === undefined) {
    const shown = new URL(url);
    for (const name of RETURN_PARAMETERS) shown.searchParams.delete(name);
    browser.history.replaceState(browser.history.state, '', shown.href);
  }
  const error = url.searchParams.get('error');
  if (error !== null) throw new OidcSignInError(error, url.searchParams.get('error_description') ?? 'The sign-in was refused.');
  const code = url.searchParams.get('entia_code');
  if (code === null) throw new OidcSignInError('invalid_request', 'This address carries no sign-in code (entia_code).');
  if (expected === null || url.searchParams.get('state') !== expected) {
    throw new OidcSignInError('invalid_state', 'This sign-in was not started here (its state does not match): sign in again.');
  }
  const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}/api/auth/oidc/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok) throw await toError(response);
  return (await response.json()) as AuthResult;
}

function randomState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
