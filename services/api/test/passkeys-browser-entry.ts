import { EntiaClient, EntiaError, registerPasskey, signInWithPasskey } from '@entia/client';

// What a web app does with the SDK's passkey functions, as its users would write it. Bundled for
// the browser by esbuild from the package's published build (passkeys-browser.test.ts) and loaded
// by passkeys-browser-page.html; the test calls these functions in the page (page.evaluate), where
// Chromium's virtual authenticator answers the passkey prompts. Each answers with what happened,
// as JSON: the result, or the error as the app would see it.

/** An error as JSON: an API refusal's status and problem, a WebAuthn failure's name and `code`. */
function described(error: unknown): Record<string, unknown> {
  if (error instanceof EntiaError) return { name: error.name, status: error.status, problem: error.problem };
  if (error instanceof Error) return { name: error.name, message: error.message, code: (error as { code?: unknown }).code, cause: String((error as { cause?: unknown }).cause ?? '') };
  return { name: typeof error, message: String(error) };
}

export type Outcome<T> = { ok: T; error?: undefined } | { ok?: undefined; error: Record<string, unknown> };

async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await run() };
  } catch (error) {
    return { error: described(error) };
  }
}

const passkeys = {
  /** Signed in with an API key, the person adds a passkey. */
  register: (api: string, key: string, db: string) => outcome(() => registerPasskey(new EntiaClient({ baseUrl: api, apiKey: key, db }).db())),
  /** Signs in with a passkey, no key at hand. */
  signIn: (api: string, db: string) => outcome(() => signInWithPasskey({ baseUrl: api, db })),
};

/** What the page offers the test, on `globalThis.passkeys`. */
export type PagePasskeys = typeof passkeys;

// The few DOM members used here, typed by hand: the tests' type-check has no DOM library.
const page = globalThis as unknown as { passkeys?: PagePasskeys; document: { body: { dataset: Record<string, string | undefined> } } };
page.passkeys = passkeys;
page.document.body.dataset.ready = 'true';
