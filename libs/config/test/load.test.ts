import { loadConfig, parseCorsOrigins } from '@entia/config';
import { failure, required } from './fixtures';

describe('loadConfig', () => {
  it('fills defaults and coerces numbers', () => {
    const config = loadConfig({ ...required, PORT: '8080' });
    expect(config.PORT).toBe(8080);
    expect(config.BODY_LIMIT_BYTES).toBe(1048576);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.S3_BUCKET).toBe('entia');
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ ...required, PORT: '' }).PORT).toBe(3000);
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ ...required, UNRELATED: 'x' })).not.toHaveProperty('UNRELATED');
  });

  it('names every missing required variable on one line', () => {
    const message = failure({});
    expect(message).not.toContain('\n');
    for (const name of Object.keys(required)) expect(message).toContain(`${name} is required`);
  });

  it.each([
    ['PORT', 'abc', /PORT must be integer \(got "abc"\)/],
    ['PORT', '70000', /PORT must be <= 65535/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of fatal\|error\|warn\|info\|debug\|trace\|silent \(got "loud"\)/],
    ['MONGODB_URL', 'postgres://x', /MONGODB_URL must match pattern/],
    ['REDIS_URL', 'http://x', /REDIS_URL must match pattern/],
    ['S3_ENDPOINT', 'not a url', /S3_ENDPOINT must match pattern/],
    ['NODE_ENV', 'staging', /NODE_ENV must be one of development\|test\|production/],
    ['JWT_SECRET', 'short', /JWT_SECRET must NOT have fewer than 32 characters$/],
  ])('refuses %s=%j with a line naming it', (name, value, expected) => {
    const message = failure({ ...required, [name]: value });
    expect(message).toMatch(expected);
    expect(message).not.toContain('\n');
  });

  describe('CORS_ORIGINS', () => {
    it('defaults to every origin in development and to none elsewhere', () => {
      expect(loadConfig(required).CORS_ORIGINS).toBe('*');
      expect(loadConfig({ ...required, NODE_ENV: 'development' }).CORS_ORIGINS).toBe('*');
      expect(loadConfig({ ...required, NODE_ENV: 'production' }).CORS_ORIGINS).toBe('none');
      expect(loadConfig({ ...required, NODE_ENV: 'test' }).CORS_ORIGINS).toBe('none');
    });

    it('takes origins, * or none as given', () => {
      const origins = 'https://app.example.com, http://127.0.0.1:8080';
      expect(parseCorsOrigins(loadConfig({ ...required, NODE_ENV: 'production', CORS_ORIGINS: origins }).CORS_ORIGINS)).toEqual([
        'https://app.example.com',
        'http://127.0.0.1:8080',
      ]);
      expect(parseCorsOrigins(loadConfig({ ...required, NODE_ENV: 'production', CORS_ORIGINS: '*' }).CORS_ORIGINS)).toBe('*');
      expect(parseCorsOrigins(loadConfig({ ...required, CORS_ORIGINS: 'none' }).CORS_ORIGINS)).toEqual([]);
    });

    it.each([
      'app.example.com',
      'https://app.example.com/',
      'https://App.example.com',
      'https://app.example.com/path',
      'https://app.example.com:443',
      'ftp://files.example.com',
      'https://a.example.com,,https://b.example.com',
      '*,https://app.example.com',
      'null',
    ])('refuses %j with one line naming CORS_ORIGINS and the bad origin', (value) => {
      const message = failure({ ...required, CORS_ORIGINS: value, PORT: 'x' });
      expect(message).not.toContain('\n');
      expect(message).toMatch(/CORS_ORIGINS has ".*", which is not an origin/);
      expect(message).toContain('PORT must be integer'); // reported with the others, not instead of them
    });
  });

  it('never echoes a secret', () => {
    const message = failure({ ...required, S3_SECRET_KEY: 'hunter2', JWT_SECRET: 'hunter3', PORT: 'x', S3_ACCESS_KEY: '' });
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('hunter3');
    expect(message).toContain('S3_ACCESS_KEY is required');
  });
});
