import { DatabaseStatisticsSchema, statisticsOf, type UsageFigures, type Value } from '@entia/domain';
import { FormatRegistry } from '@sinclair/typebox';
import { Value as Check } from '@sinclair/typebox/value';

// TypeBox checks a format only when told what it is; the API's validator (ajv) knows it already.
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (text) => !Number.isNaN(Date.parse(text)));

const usage: UsageFigures = { entities: 12, deletedEntities: 2, values: 80, deletedValues: 5, fileBytes: 4096, sizeBytes: 65536, at: '2026-11-28T10:00:00.000Z' };
const name = (string: string, language?: string): Value =>
  ({ _id: 'a'.repeat(24), type: 'name', string, ...(language ? { language } : {}), created: { at: usage.at, by: 'b'.repeat(24) } }) as Value;

describe('statisticsOf: Entu\'s statistics shape from what was counted', () => {
  it('puts each figure where Entu\'s client reads it, with no limits', () => {
    const answer = statisticsOf(usage, [name('Library')]);
    expect(answer).toEqual({
      organization: [{ string: 'Library' }],
      entities: { usage: 12, deleted: 2, limit: null },
      properties: { usage: 80, deleted: 5 },
      requests: { usage: null, limit: null },
      tokens: { usage: 0, limit: null },
      files: { usage: 4096, deleted: 0, limit: null },
      dbSize: 65536,
      computedAt: usage.at,
    });
    expect(Check.Check(DatabaseStatisticsSchema, answer)).toBe(true);
  });

  it.each([
    ['no name the caller may read', [], []],
    ['multilingual names', [name('Raamatukogu', 'et'), name('Library', 'en')], [{ string: 'Raamatukogu', language: 'et' }, { string: 'Library', language: 'en' }]],
  ])('organization: %s', (_case, names, organization) => {
    expect(statisticsOf(usage, names).organization).toEqual(organization);
  });

  it('says null for a database size the engine does not report', () => {
    const answer = statisticsOf({ ...usage, sizeBytes: undefined }, []);
    expect(answer.dbSize).toBeNull();
    expect(Check.Check(DatabaseStatisticsSchema, answer)).toBe(true);
  });
});
