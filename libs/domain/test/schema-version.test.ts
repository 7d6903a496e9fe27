import { schemaVerdict, type SchemaVerdict } from '@entia/domain';

/**
 * Whether a process may serve the stored schema (issue 22): an older one is refused with the
 * command to run, a newer one served with a warning (migrations only add), a fresh installation
 * (no record, no database) served as current.
 */
describe('schemaVerdict', () => {
  const cases: [string, { fresh: boolean; version: number | undefined }, number, SchemaVerdict][] = [
    ['a fresh installation', { fresh: true, version: undefined }, 2, { serve: true, state: 'fresh' }],
    ['the same version', { fresh: false, version: 2 }, 2, { serve: true, state: 'current' }],
    [
      'databases from before migrations (version 0)',
      { fresh: false, version: 0 },
      2,
      { serve: false, state: 'behind', message: 'schema version 0, this version needs 2: run entia-admin migrate' },
    ],
    ['one migration behind', { fresh: false, version: 1 }, 2, { serve: false, state: 'behind', message: 'schema version 1, this version needs 2: run entia-admin migrate' }],
    [
      'a newer schema (a rollback after a migration)',
      { fresh: false, version: 3 },
      2,
      { serve: true, state: 'newer', message: expect.stringMatching(/^schema version 3 is newer than this version's 2: served/) },
    ],
  ];

  it.each(cases)('%s', (_, stored, needed, verdict) => {
    expect(schemaVerdict(stored, needed)).toEqual(verdict);
  });
});
