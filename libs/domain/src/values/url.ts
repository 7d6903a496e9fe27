import { defineValueType, refuse } from './descriptor';
import { STRING_FIELD, isWellFormed } from './string';

/** The longest address kept: what browsers and servers reliably take. */
export const MAX_URL = 2048;

// Written with its scheme and `//`: `http:example.org` parses too, but is no address a reader means.
const ABSOLUTE_HTTP = /^https?:\/\//i;
// The URL parser drops or encodes these silently: stored, the address would not be what is shown.
const SPACE_OR_CONTROL = /[\s\u0000-\u001F\u007F]/;

/** An absolute http(s) address of a host, stored exactly as given; undefined when it is not one. */
function hostOf(text: string): string | undefined {
  try {
    return new URL(text).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A web address: kept in the value's `string` field like a string, so it is filtered,
 * sorted, indexed and searched as text (`homepage.string.regex=/^https:/`), and read by formulas
 * as its text; never a formula's result.
 */
export const URL_TYPE = defineValueType({
  type: 'url',
  fields: [STRING_FIELD],
  check: (input) => {
    const text = input.string;
    if (typeof text !== 'string') return refuse('string', 'must be a string');
    if (text.length > MAX_URL) return refuse('string', `must be at most ${MAX_URL} characters`);
    if (!isWellFormed(text) || SPACE_OR_CONTROL.test(text) || !ABSOLUTE_HTTP.test(text) || hostOf(text) === undefined) {
      return refuse('string', 'must be an absolute http or https address, such as https://example.org/page');
    }
    return { string: text };
  },
  formula: { read: (value) => value.string },
});
