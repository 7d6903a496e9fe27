import { DATABASE_NAME_PATTERN, OBJECT_ID_PATTERN, isDatabaseName, isObjectId, isPropertyName } from '@entia/domain';

describe('isDatabaseName', () => {
  it.each(['abc', 'my_db', 'a12', 'x'.padEnd(63, 'y')])('accepts %s', (name) => {
    expect(isDatabaseName(name, 'entia')).toBe(true);
  });
  it.each(['ab', 'Abc', '1abc', '_abc', 'a-bc', 'a.bc', 'x'.padEnd(64, 'y'), 'admin', 'local', 'config', 'auth', 'jobs', 'entia', 'ab c', '$abc'])(
    'refuses %j',
    (name) => {
      expect(isDatabaseName(name, 'entia')).toBe(false);
    },
  );
});

describe('isObjectId', () => {
  it('accepts 24 lowercase hex characters', () => expect(isObjectId('5f1d7a0c9b1e8a0012345678')).toBe(true));
  it.each(['5F1D7A0C9B1E8A0012345678', '5f1d7a0c9b1e8a001234567', '5f1d7a0c9b1e8a00123456789', 'zzzzzzzzzzzzzzzzzzzzzzzz', ''])(
    'refuses %j',
    (id) => expect(isObjectId(id)).toBe(false),
  );
});

describe('isPropertyName', () => {
  it.each(['name', 'a', 'First_name2', 'x'.padEnd(64, 'y')])('accepts %s', (name) => expect(isPropertyName(name)).toBe(true));
  it.each(['_type', '1a', 'a-b', 'a.b', '$gt', '', 'x'.padEnd(65, 'y')])('refuses %j', (name) => expect(isPropertyName(name)).toBe(false));
});

describe('the patterns published for the API description', () => {
  // Every name of the tests above except the control database, which is configuration.
  const names = ['abc', 'my_db', 'a12', 'x'.padEnd(63, 'y'), 'ab', 'Abc', '1abc', '_abc', 'a-bc', 'a.bc', 'x'.padEnd(64, 'y'), 'admin', 'local', 'config', 'auth', 'jobs', 'ab c', '$abc', 'jobsx', 'authors'];
  it.each(names)('DATABASE_NAME_PATTERN agrees with isDatabaseName on %j', (name) => {
    expect(new RegExp(DATABASE_NAME_PATTERN, 'u').test(name)).toBe(isDatabaseName(name, 'entia'));
  });
  it.each(['5f1d7a0c9b1e8a0012345678', '5F1D7A0C9B1E8A0012345678', '5f1d7a0c9b1e8a001234567', ''])('OBJECT_ID_PATTERN agrees with isObjectId on %j', (id) => {
    expect(new RegExp(OBJECT_ID_PATTERN, 'u').test(id)).toBe(isObjectId(id));
  });
});
