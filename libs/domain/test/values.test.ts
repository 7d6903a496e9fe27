import {
  DEFAULT_LIMITS,
  SYSTEM_DEFINITIONS,
  checkValue,
  isCalendarDate,
  normaliseDatetime,
  type FieldError,
  type ValueShape,
  type ValueType,
} from '@entia/domain';

const shape = (type: ValueType, multilingual = false): ValueShape => ({ name: 'p', type, multilingual });
const check = (type: ValueType, input: Record<string, unknown>, limits = DEFAULT_LIMITS) => checkValue(input, shape(type), limits, '/3');

/** The pointers of the errors, or a failure message when the value was accepted. */
function pointers(result: ReturnType<typeof checkValue>): string[] {
  if (!Array.isArray(result)) throw new Error(`expected the value to be refused, got ${JSON.stringify(result)}`);
  return result.map((error: FieldError) => error.pointer ?? '');
}

const ID = '5f1d7a0c9b1e8a0012345678';
const FILE = { filename: 'report.pdf', filesize: 1024, filetype: 'application/pdf' };

describe('checkValue: values that fit their definition are stored as given (SPEC §3)', () => {
  it.each<[ValueType, Record<string, unknown>, Record<string, unknown>]>([
    ['string', { string: 'hello' }, { string: 'hello' }],
    ['string', { string: '' }, { string: '' }],
    ['string', { string: 'x'.repeat(10_000) }, { string: 'x'.repeat(10_000) }],
    ['text', { string: 'x'.repeat(1_000_000) }, { string: 'x'.repeat(1_000_000) }],
    ['number', { number: 0 }, { number: 0 }],
    ['number', { number: -12.5 }, { number: -12.5 }],
    ['number', { number: 1e308 }, { number: 1e308 }],
    ['boolean', { boolean: true }, { boolean: true }],
    ['boolean', { boolean: false }, { boolean: false }],
    ['date', { date: '2024-02-29' }, { date: '2024-02-29' }],
    ['date', { date: '2000-02-29' }, { date: '2000-02-29' }],
    ['date', { date: '1999-12-31' }, { date: '1999-12-31' }],
    ['reference', { reference: ID }, { reference: ID }],
    ['file', FILE, FILE],
    ['file', { filename: 'a', filesize: 1, filetype: 'image/svg+xml' }, { filename: 'a', filesize: 1, filetype: 'image/svg+xml' }],
  ])('%s %j', (type, input, stored) => {
    expect(check(type, input)).toEqual(stored);
  });
});

describe('checkValue: datetimes need an offset and come back in UTC', () => {
  it.each([
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.5Z', '2024-05-01T12:00:00.500Z'],
    ['2024-05-01T12:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T01:30:00+05:30', '2024-04-30T20:00:00.000Z'],
    ['2024-12-31T22:00:00-03:00', '2025-01-01T01:00:00.000Z'],
    ['2024-02-29T23:59:59+00:00', '2024-02-29T23:59:59.000Z'],
  ])('%s is stored as %s', (given, stored) => {
    expect(check('datetime', { datetime: given })).toEqual({ datetime: stored });
  });

  it.each([
    '2024-05-01T12:00:00', // no offset: which 12:00?
    '2024-05-01 12:00:00Z',
    '2024-05-01',
    '2024-05-01T25:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:00:60Z',
    '2023-02-29T12:00:00Z',
    '2024-13-01T12:00:00Z',
    '2024-05-01T12:00:00+24:00',
    '2024-05-01T12:00:00+0200',
    '1714564800000',
    'yesterday',
    '',
  ])('refuses %j', (given) => {
    expect(pointers(check('datetime', { datetime: given }))).toEqual(['/3/datetime']);
  });

  it('refuses a datetime whose UTC form would leave the four-digit years it accepts', () => {
    expect(pointers(check('datetime', { datetime: '9999-12-31T23:00:00-02:00' }))).toEqual(['/3/datetime']);
    expect(pointers(check('datetime', { datetime: '0000-01-01T00:00:00+01:00' }))).toEqual(['/3/datetime']);
  });
});

describe('checkValue: values that break their rule are refused at their field', () => {
  it.each<[string, ValueType, Record<string, unknown>, string]>([
    ['a string over the limit', 'string', { string: 'x'.repeat(10_001) }, '/3/string'],
    ['a text over 1 000 000 characters', 'text', { string: 'x'.repeat(1_000_001) }, '/3/string'],
    ['a number as text', 'number', { number: '5' }, '/3/number'],
    ['an infinite number', 'number', { number: Infinity }, '/3/number'],
    ['NaN', 'number', { number: NaN }, '/3/number'],
    ['a boolean as text', 'boolean', { boolean: 'true' }, '/3/boolean'],
    ['a boolean as a number', 'boolean', { boolean: 1 }, '/3/boolean'],
    ['29 February of a common year', 'date', { date: '2023-02-29' }, '/3/date'],
    ['month 13', 'date', { date: '2024-13-01' }, '/3/date'],
    ['31 April', 'date', { date: '2024-04-31' }, '/3/date'],
    ['day 0', 'date', { date: '2024-05-00' }, '/3/date'],
    ['an unpadded date', 'date', { date: '2024-5-1' }, '/3/date'],
    ['a date with a time', 'date', { date: '2024-05-01T00:00:00Z' }, '/3/date'],
    ['an uppercase id', 'reference', { reference: ID.toUpperCase() }, '/3/reference'],
    ['a short id', 'reference', { reference: ID.slice(1) }, '/3/reference'],
    ['a name instead of an id', 'reference', { reference: 'John Smith' }, '/3/reference'],
    ['an empty file name', 'file', { ...FILE, filename: '' }, '/3/filename'],
    ['a file name over 255 characters', 'file', { ...FILE, filename: 'x'.repeat(256) }, '/3/filename'],
    ['an empty file', 'file', { ...FILE, filesize: 0 }, '/3/filesize'],
    ['a negative size', 'file', { ...FILE, filesize: -1 }, '/3/filesize'],
    ['a fractional size', 'file', { ...FILE, filesize: 1.5 }, '/3/filesize'],
    ['a size over the maximum', 'file', { ...FILE, filesize: DEFAULT_LIMITS.maxFileSize + 1 }, '/3/filesize'],
    ['a size as text', 'file', { ...FILE, filesize: '1024' }, '/3/filesize'],
    ['a file type that is not a MIME type', 'file', { ...FILE, filetype: 'pdf' }, '/3/filetype'],
    ['an empty file type', 'file', { ...FILE, filetype: '' }, '/3/filetype'],
    ['a file type with a line break', 'file', { ...FILE, filetype: 'text/plain\r\nX-Evil: 1' }, '/3/filetype'],
  ])('%s', (_, type, input, pointer) => {
    expect(pointers(check(type, input))).toEqual([pointer]);
  });

  it('honours a configured string limit, but not for text', () => {
    const limits = { ...DEFAULT_LIMITS, maxStringLength: 5 };
    expect(check('string', { string: '12345' }, limits)).toEqual({ string: '12345' });
    expect(pointers(check('string', { string: '123456' }, limits))).toEqual(['/3/string']);
    expect(check('text', { string: '123456' }, limits)).toEqual({ string: '123456' });
  });

  it('honours a configured file size limit', () => {
    const limits = { ...DEFAULT_LIMITS, maxFileSize: 100 };
    expect(check('file', { ...FILE, filesize: 100 }, limits)).toEqual({ ...FILE, filesize: 100 });
    expect(pointers(check('file', { ...FILE, filesize: 101 }, limits))).toEqual(['/3/filesize']);
  });
});

describe('checkValue: the value field must be exactly the one(s) of the type', () => {
  it.each<[string, ValueType, Record<string, unknown>, string[]]>([
    ['a number on a string property', 'string', { number: 5 }, ['/3/number', '/3/string']],
    ['a string on a number property', 'number', { string: '5' }, ['/3/string', '/3/number']],
    ['a datetime on a date property', 'date', { datetime: '2024-05-01T00:00:00Z' }, ['/3/datetime', '/3/date']],
    ['a string on a reference property', 'reference', { string: ID }, ['/3/string', '/3/reference']],
    ['a date field on a text property', 'text', { date: '2024-05-01' }, ['/3/date', '/3/string']],
    ['two value fields', 'string', { string: 'a', number: 1 }, ['/3/number']],
    ['a file field beside a string', 'string', { string: 'a', filename: 'a.txt' }, ['/3/filename']],
    ['a string beside a file', 'file', { ...FILE, string: 'a' }, ['/3/string']],
    ['no value at all', 'string', {}, ['/3/string']],
    ['no value for a boolean', 'boolean', {}, ['/3/boolean']],
    ['a file without its name', 'file', { filesize: 1, filetype: 'text/plain' }, ['/3/filename']],
    ['a file without its size', 'file', { filename: 'a', filetype: 'text/plain' }, ['/3/filesize']],
    ['a file without its type', 'file', { filename: 'a', filesize: 1 }, ['/3/filetype']],
    ['a file with nothing', 'file', {}, ['/3/filename', '/3/filesize', '/3/filetype']],
  ])('%s is refused', (_, type, input, expected) => {
    expect(pointers(check(type, input))).toEqual(expected);
  });

  it('a null value field counts as given, and is refused', () => {
    expect(pointers(check('string', { string: null }))).toEqual(['/3/string']);
    expect(pointers(check('number', { string: null, number: 1 }))).toEqual(['/3/string']);
  });
});

describe('checkValue: operator objects and arrays are never taken for a value', () => {
  it.each<[ValueType, Record<string, unknown>]>([
    ['string', { string: { $ne: '' } }],
    ['string', { string: ['a', 'b'] }],
    ['string', { string: { $regex: '.*' } }],
    ['text', { string: { $gt: '' } }],
    ['number', { number: { $gt: 0 } }],
    ['number', { number: [1] }],
    ['boolean', { boolean: { $ne: false } }],
    ['date', { date: { $exists: true } }],
    ['datetime', { datetime: { $lt: '2030-01-01T00:00:00Z' } }],
    ['reference', { reference: { $in: [ID] } }],
    ['reference', { reference: [ID] }],
    ['file', { ...FILE, filename: { $ne: null } }],
    ['file', { ...FILE, filetype: ['text/plain'] }],
  ])('%s %j', (type, input) => {
    const [field] = Object.keys(input).filter((key) => typeof input[key] === 'object');
    expect(pointers(check(type, input))).toEqual([`/3/${field}`]);
  });
});

describe('checkValue: languages', () => {
  const multilingual = (input: Record<string, unknown>) => checkValue(input, shape('string', true), DEFAULT_LIMITS, '/0');

  it.each(['en', 'et', 'est', 'pt-BR', 'zh-Hant', 'zh-Hant-TW', 'de-1996'])('a multilingual value in %s is stored with its language', (language) => {
    expect(multilingual({ string: 'x', language })).toEqual({ string: 'x', language });
  });

  it('a multilingual value without a language is refused', () => {
    expect(pointers(multilingual({ string: 'x' }))).toEqual(['/0/language']);
  });

  it.each(['EN', 'e', 'english', 'en_US', 'en-', 'en-B', '', ' en', 'en-toolongsub'])('language %j is refused', (language) => {
    expect(pointers(multilingual({ string: 'x', language }))).toEqual(['/0/language']);
  });

  it.each([{ $ne: null }, ['en'], 12, true])('a language that is not text (%j) is refused', (language) => {
    expect(pointers(multilingual({ string: 'x', language }))).toEqual(['/0/language']);
  });

  it.each(['en', ''])('a non-multilingual value with language %j is refused', (language) => {
    expect(pointers(checkValue({ string: 'x', language }, shape('string'), DEFAULT_LIMITS, '/0'))).toEqual(['/0/language']);
  });

  it('a non-multilingual value is stored without a language', () => {
    expect(checkValue({ number: 1 }, shape('number'), DEFAULT_LIMITS, '/0')).toEqual({ number: 1 });
  });

  it('every problem of one value is reported together', () => {
    expect(pointers(multilingual({ number: 1 }))).toEqual(['/0/number', '/0/string', '/0/language']);
  });
});

describe('checkValue: _sharing', () => {
  const sharing = SYSTEM_DEFINITIONS.get('_sharing')!;

  it.each(['private', 'domain', 'public'])('%s is allowed', (value) => {
    expect(checkValue({ string: value }, sharing, DEFAULT_LIMITS, '/0')).toEqual({ string: value });
  });

  it.each(['Public', 'everyone', 'shared', '', 'domain ', 'private,public'])('%j is refused', (value) => {
    expect(pointers(checkValue({ string: value }, sharing, DEFAULT_LIMITS, '/0'))).toEqual(['/0/string']);
  });

  it('needs a string value', () => {
    expect(pointers(checkValue({ boolean: true }, sharing, DEFAULT_LIMITS, '/0'))).toEqual(['/0/boolean', '/0/string']);
  });
});

describe('isCalendarDate', () => {
  it.each(['2024-02-29', '1900-01-01', '2100-12-31', '0050-03-15', '0001-01-01', '0000-02-29', '9999-12-31'])('%s is a real date', (date) => {
    expect(isCalendarDate(date)).toBe(true);
  });
  it.each(['1900-02-29', '2100-02-29', '2023-02-29', '2024-06-31', '2024-00-01', '2024-01-32', '24-01-01', '+2024-01-01'])('%s is not', (date) => {
    expect(isCalendarDate(date)).toBe(false);
  });
});

describe('normaliseDatetime', () => {
  it('keeps early years in four digits', () => {
    expect(normaliseDatetime('0050-03-15T12:00:00+01:00')).toBe('0050-03-15T11:00:00.000Z');
  });
});
