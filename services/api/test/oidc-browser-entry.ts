import { OidcSignInError, completeOidcSignIn, signInWithOidc, type AuthResult } from '@entia/client';

// What a web app does with the SDK's OpenID Connect redirect helpers, as its users would write it.
// Bundled for the browser by esbuild from the package's published build (oidc-browser.test.ts) and
// loaded by oidc-browser-page.html, which the app serves both as its sign-in page (`/`) and as its
// return address (`/signed-in`). The test calls these functions in the page (page.evaluate); nothing
// runs on load, so a test decides when (and in which tab) a returned sign-in is completed.

/** The SDK's key for the state of the sign-in under way (libs/client/src/oidc.ts). */
const STATE_KEY = 'entia:oidc-state';

// The few DOM members used here, typed by hand: the tests' type-check has no DOM library.
const page = globalThis as unknown as {
  oidc?: PageOidc;
  location: { href: string };
  sessionStorage: { getItem(key: string): string | null };
  document: { body: { dataset: Record<string, string | undefined> } };
};

export type Outcome<T> = { ok: T; error?: undefined } | { ok?: undefined; error: Record<string, unknown> };

/** An error as JSON: a refused sign-in's `error` code, anything else by name and message. */
function described(error: unknown): Record<string, unknown> {
  if (error instanceof OidcSignInError) return { name: error.name, error: error.error, message: error.message, isOidcSignInError: true };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: typeof error, message: String(error) };
}

const oidc = {
  /** The "Sign in" button: leaves the page for the API, then the provider. */
  start(api: string, db: string, redirect: string, loginHint: string): void {
    signInWithOidc({ baseUrl: api, provider: 'test', db, redirect, loginHint });
  },
  /** The return page: exchanges the code it came back with. */
  async complete(api: string): Promise<Outcome<AuthResult>> {
    try {
      return { ok: await completeOidcSignIn({ baseUrl: api }) };
    } catch (error) {
      return { error: described(error) };
    }
  },
  /** What the user could see or inspect: the address bar, and the state kept for this tab. */
  where: () => ({ href: page.location.href, state: page.sessionStorage.getItem(STATE_KEY) }),
};

/** What the page offers the test, on `globalThis.oidc`. */
export type PageOidc = typeof oidc;

page.oidc = oidc;
page.document.body.dataset.ready = 'true';
