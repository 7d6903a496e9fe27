import { descriptorOf } from '@entia/domain';
import { describeValueType } from './table';

const LONG = `https://example.org/${'a'.repeat(2048 - 'https://example.org/'.length)}`;

// Its one field is `string`, whose filters, sort key, index entry and search text string.test.ts tables.
describeValueType(descriptorOf('url'), {
  fields: ['string'],
  accepts: [
    [{ string: 'https://example.org' }, { string: 'https://example.org' }],
    [{ string: 'http://example.org/a/b?q=1#top' }, { string: 'http://example.org/a/b?q=1#top' }],
    // Stored as given, not as the parser would write it.
    [{ string: 'HTTPS://Example.ORG/Päge' }, { string: 'HTTPS://Example.ORG/Päge' }],
    [{ string: 'https://[2001:db8::1]:8443/' }, { string: 'https://[2001:db8::1]:8443/' }],
    [{ string: LONG }, { string: LONG }],
  ],
  refuses: [
    [{ string: 1 }, 'string', /must be a string/],
    [{ string: `${LONG}b` }, 'string', /at most 2048 characters/],
    [{ string: '' }, 'string', /absolute http or https address/],
    [{ string: 'example.org' }, 'string', /absolute http or https address/],
    [{ string: '/relative/path' }, 'string', /absolute http or https address/],
    [{ string: 'ftp://example.org/file' }, 'string', /absolute http or https address/],
    [{ string: 'javascript:alert(1)' }, 'string', /absolute http or https address/],
    [{ string: 'mailto:ann@example.org' }, 'string', /absolute http or https address/],
    [{ string: 'http:example.org' }, 'string', /absolute http or https address/],
    [{ string: 'https://' }, 'string', /absolute http or https address/],
    [{ string: 'https://exa mple.org' }, 'string', /absolute http or https address/],
    [{ string: ' https://example.org' }, 'string', /absolute http or https address/],
    [{ string: 'https://example.org/\n' }, 'string', /absolute http or https address/],
    [{ string: 'https://example.org/\uD800' }, 'string', /absolute http or https address/],
  ],
  formula: {
    reads: [
      [{ string: 'https://example.org' }, 'https://example.org'],
      [{}, undefined],
    ],
    stores: undefined,
  },
});
