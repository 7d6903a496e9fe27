import {
  DomainError,
  SYSTEM_DEFINITIONS,
  attributeValues,
  parseFormula,
  parseListQuery,
  parseReferenceQuery,
  presentEntity,
  presentValue,
  isSecretProperty,
  searchIndex,
  sortKeys,
  type Properties,
  type RawQuery,
} from '@entia/domain';
import { val } from './fixtures';

/**
 * Secret properties (issue 14): one rule, `isSecretProperty`, read from the system definitions.
 * Whatever asks it — the query parser, presentation, the derived index fields, formulas — treats a
 * secret the same way: it can be shown only as "***", and nothing may compare, order or search its
 * stored form, which would recover it a character at a time.
 */

const HASH = '3fa9c0de'.repeat(8);

describe('isSecretProperty: the system definitions say which properties are secret', () => {
  it.each<[string, boolean]>([
    ['_api_key', true],
    ['_type', false],
    ['_parent', false],
    ['_created', false],
    ['_sharing', false],
    ['_owner', false],
    ['_viewer', false],
    ['_inheritrights', false],
    // User properties can never be secret (nor shadow one: their names cannot start with `_`).
    ['api_key', false],
    ['name', false],
    ['_API_KEY', false],
    ['_nonexistent', false],
  ])('%s: %s', (name, secret) => {
    expect(isSecretProperty(name)).toBe(secret);
  });

  it('is exactly the definitions marked secret', () => {
    const secret = [...SYSTEM_DEFINITIONS.values()].filter((d) => d.secret).map((d) => d.name);
    expect(secret).toEqual(['_api_key']);
    for (const name of SYSTEM_DEFINITIONS.keys()) expect(isSecretProperty(name)).toBe(secret.includes(name));
  });
});

/** The parameters `raw` is refused for, or undefined when it is accepted. */
function refusedParameters(run: () => unknown): string[] | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.kind).toBe('invalid');
    return error.errors.map((e) => e.parameter!);
  }
}

describe('queries on a secret property: only whether it exists', () => {
  it.each<[string, RawQuery, string[] | undefined]>([
    // The security test's finding: a regex recovers the stored hash one character at a time.
    ['regex', { '_api_key.string.regex': '/^3f/' }, ['_api_key.string.regex']],
    ['regex, case-insensitive', { '_api_key.string.regex': '/^3F/i' }, ['_api_key.string.regex']],
    ['eq', { '_api_key.string': HASH }, ['_api_key.string']],
    ['ne', { '_api_key.string.ne': HASH }, ['_api_key.string.ne']],
    ['in', { '_api_key.string.in': `${HASH},x` }, ['_api_key.string.in']],
    ['sort ascending', { sort: '_api_key.string' }, ['sort']],
    ['sort descending, after another key', { sort: 'name.string,-_api_key.string' }, ['sort']],
    ['several at once, each named', { '_api_key.string': HASH, sort: '_api_key.string' }, ['_api_key.string', 'sort']],
    ['exists=true', { '_api_key.string.exists': 'true' }, undefined],
    ['exists=false', { '_api_key.string.exists': 'false' }, undefined],
    ['props: shown masked, so allowed', { props: '_api_key,name' }, undefined],
    ['q: names no property, and secrets are never indexed for it', { q: HASH.slice(0, 6) }, undefined],
    ['other system properties are not secret', { '_sharing.string.regex': '/^pub/', sort: '_created.datetime' }, undefined],
    ['a user property named like it is not secret', { 'api_key.string.regex': '/^3f/', sort: 'api_key.string' }, undefined],
  ])('%s', (_, raw, refused) => {
    expect(refusedParameters(() => parseListQuery(raw))).toEqual(refused);
  });

  it('a reference_query cannot be an oracle either (a reference write would tell whether it matched)', () => {
    expect(refusedParameters(() => parseReferenceQuery(`_api_key.string.regex=${encodeURIComponent('/^3f/')}`))).toEqual(['_api_key.string.regex']);
    expect(refusedParameters(() => parseReferenceQuery('_api_key.string.exists=true'))).toBeUndefined();
  });

  it('the refusal says what may be done instead', () => {
    try {
      parseListQuery({ '_api_key.string.regex': '/^a/' });
    } catch (error) {
      expect((error as DomainError).errors[0]!.message).toBe('"_api_key" is secret: only _api_key.string.exists may be filtered on');
    }
    expect.assertions(1);
  });
});

describe('what a secret leaves behind in an entity document and its responses', () => {
  const properties: Properties = {
    name: [val('name', { string: 'Ann' })],
    _api_key: [val('_api_key', { string: HASH })],
  };

  it('is shown as "***" by every read', () => {
    expect(presentValue(properties._api_key![0]!).string).toBe('***');
    expect(JSON.stringify(presentEntity({ _id: 'x', properties }))).not.toContain(HASH);
    expect(JSON.stringify(presentEntity({ _id: 'x', properties }, ['_api_key']))).not.toContain(HASH);
  });

  it('has no attribute-value, sort or search entry', () => {
    expect(attributeValues(properties).join(' ')).not.toContain('_api_key');
    expect(Object.keys(sortKeys(properties))).toEqual(['name']);
    // Even were a definition to make it searchable.
    expect(searchIndex(properties, new Set(['_api_key', 'name']))).toEqual(['a', 'an', 'ann']);
  });

  it.each(['_api_key', '_api_key COUNT', '_child.*._api_key', 'person.*._api_key', '_api_key.*.name'])('cannot be read by the formula %j', (formula) => {
    expect(() => parseFormula(formula)).toThrow('_api_key cannot be read by a formula');
  });
});
