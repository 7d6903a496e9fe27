import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '@entia/config';

// The README's configuration table is what operators read; it must list exactly the settings the
// service validates, with the same defaults.
describe('README configuration table', () => {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  const section = readme.split('## Configuration')[1]!.split('\n## ')[0]!;
  const rows = [...section.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)].map(([, name, def]) => [name!, def!.trim()] as const);

  it('lists every setting once, and nothing else', () => {
    expect(rows.map(([name]) => name).sort()).toEqual(Object.keys(ConfigSchema.properties).sort());
  });

  it('shows each default as the schema has it', () => {
    for (const [name, shown] of rows) {
      const schema = ConfigSchema.properties[name as keyof typeof ConfigSchema.properties] as { default?: unknown };
      expect([name, shown]).toEqual([name, schema.default === undefined ? 'required' : `\`${String(schema.default)}\``]);
    }
  });
});
