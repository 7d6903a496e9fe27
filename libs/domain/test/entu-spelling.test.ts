import { DomainError, fromEntuSpelling, inEntuSpelling, type ValueInput } from '../src';

describe("Entu's spelling of credential writes (issue 33, item 4)", () => {
  it.each<[string, ValueInput[], ValueInput[]]>([
    ["Entu's Generate API Key", [{ type: 'entu_api_key', string: 'generate' }], [{ type: '_api_key' }]],
    ['entu_api_key without a value', [{ type: 'entu_api_key' }], [{ type: '_api_key' }]],
    ['the language the form sends along is kept, for the credential rule to refuse', [{ type: 'entu_api_key', string: 'generate', language: 'et' }], [{ type: '_api_key', language: 'et' }]],
    ['an _id is kept, for the credential rule to refuse', [{ type: 'entu_api_key', _id: 'a'.repeat(24) }], [{ type: '_api_key', _id: 'a'.repeat(24) }]],
    ['other values pass as they are', [{ type: 'name', string: 'generate' }, { type: '_api_key' }], [{ type: 'name', string: 'generate' }, { type: '_api_key' }]],
    ['a name of the prototype is no alias', [{ type: 'constructor', string: 'x' }, { type: '__proto__', string: 'x' }], [{ type: 'constructor', string: 'x' }, { type: '__proto__', string: 'x' }]],
  ])('%s', (_name, sent, written) => {
    expect(fromEntuSpelling(sent).items).toEqual(written);
  });

  it.each([['a key of its own', 'my-own-key'], ['an empty string', ''], ['a number', 7]])('entu_api_key with %s → 400 naming the value', (_name, string) => {
    let refused: unknown;
    try {
      fromEntuSpelling([{ type: 'name', string: 'x' }, { type: 'entu_api_key', string }]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'invalid', errors: [{ pointer: '/1/string' }] });
  });

  it('answers each written value under the name it was sent under; formula values after them keep theirs', () => {
    const { sentAs } = fromEntuSpelling([{ type: 'name', string: 'x' }, { type: 'entu_api_key' }]);
    const written = [
      { _id: '1', type: 'name', string: 'x' },
      { _id: '2', type: '_api_key', string: 'plaintext' },
      { _id: '3', type: '_api_key', string: 'not from this request' },
    ];
    expect(inEntuSpelling(written, sentAs).map((value) => value.type)).toEqual(['name', 'entu_api_key', '_api_key']);
  });
});
