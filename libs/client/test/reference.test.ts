import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SDK = resolve(__dirname, '..');
const COMMITTED = resolve(SDK, '../../docs/client-api');

// The API reference in docs/client-api is generated from the SDK's types and doc comments by
// TypeDoc (warnings are errors: nothing exported goes undocumented or dangles). It must be what the
// sources generate now: after changing them, run `npm run docs -w @entia/client`.
describe('the SDK API reference', () => {
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'entia-typedoc-'));
  });
  afterAll(() => rm(out, { recursive: true, force: true }));

  it('is what TypeDoc generates from the sources now', async () => {
    await run(process.execPath, [resolve(SDK, '../../node_modules/typedoc/bin/typedoc'), '--out', out], { cwd: SDK });
    const generated = (await readdir(out)).sort();
    expect((await readdir(COMMITTED)).sort()).toEqual(generated);
    for (const file of generated) {
      expect({ file, text: await readFile(join(COMMITTED, file), 'utf8') }).toEqual({ file, text: await readFile(join(out, file), 'utf8') });
    }
  }, 120_000);
});
