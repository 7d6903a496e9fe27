import { EntiaClient, EntiaError, UploadError } from '@entia/client';

// What a web app on another origin does with the SDK, as its users would write it. Bundled for the
// browser by esbuild from the package's published build (sdk-browser.test.ts), and loaded by
// sdk-browser-page.html. Settings come in the query string; what the page did and read is written
// into #out as JSON, step by step, so a failure shows how far it got.

// The few DOM members used here, typed by hand: the tests' type-check has no DOM library.
const page = globalThis as unknown as {
  location: { search: string };
  document: { getElementById(id: string): { textContent: string | null } | null; body: { dataset: Record<string, string | undefined> } };
  nodeGlobalsHit?: unknown[];
};

/**
 * The database's types as `entia types` writes them. Needed to call `upload` at all from TypeScript:
 * on an untyped handle (`AnySchema`) a property's `type` is the whole `ValueType` union, so
 * `FileKeys` finds no file property and `upload(id, 'cover', …)` takes `never` (a compile error).
 */
type LibrarySchema = {
  book: {
    title: { type: 'string'; list: false; multilingual: false; mandatory: true };
    tags: { type: 'string'; list: true; multilingual: false };
    pages: { type: 'number'; list: false; multilingual: false };
    cover: { type: 'file'; list: false; multilingual: false };
  };
};

const settings = Object.fromEntries(new URLSearchParams(page.location.search)) as Record<'api' | 'key' | 'db' | 'content', string>;
const results: Record<string, unknown> = {};

/** An error as JSON: its kind and message, and what the server or storage said. */
function described(error: unknown): Record<string, unknown> {
  if (error instanceof EntiaError) return { name: error.name, message: error.message, status: error.status, problem: error.problem };
  if (error instanceof UploadError) return { name: error.name, message: error.message, status: error.status, body: error.body, cause: String(error.cause) };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: typeof error, message: String(error) };
}

async function main(): Promise<void> {
  // 1. Sign in with the API key.
  const client = new EntiaClient({ baseUrl: settings.api, apiKey: settings.key, db: settings.db });
  const auth = await client.auth();
  results.auth = { token: typeof auth.token === 'string' && auth.token.length > 0, accounts: auth.accounts.map((account) => ({ db: account._id, user: account.user._id })) };

  // 2. List entities of a type by name (the schema comes from GET /api/{db}/schema).
  const db = client.db<LibrarySchema>();
  const books = db.type('book');
  const page1 = await books.list({ where: { pages: { gte: 100 } }, sort: '-pages' });
  results.list = { count: page1.count, titles: page1.items.map((book) => book.title), pages: page1.items.map((book) => book.pages), types: page1.items.map((book) => book._type) };

  // 3. Create one.
  const created = await books.create({ title: 'Dune', tags: ['sf'] });
  results.created = created;

  // 4. Upload a file made in the page, then download it.
  const bytes = new TextEncoder().encode(settings.content);
  const file = new File([bytes], 'cover.txt', { type: 'text/plain' });
  const cover = await books.upload(created._id, 'cover', file);
  results.upload = cover;
  const downloaded = await db.download(cover._id);
  results.download = { value: downloaded.value, status: downloaded.response.status, text: await downloaded.response.text() };
  results.readBack = await books.get(created._id);
}

main()
  .catch((error: unknown) => {
    results.failed = described(error);
  })
  .then(() => {
    results.nodeGlobalsHit = page.nodeGlobalsHit ?? 'no traps';
    const out = page.document.getElementById('out');
    if (out) out.textContent = JSON.stringify(results);
    page.document.body.dataset.done = 'true';
  });
