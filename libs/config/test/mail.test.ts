import { loadConfig } from '@entia/config';
import { failure, required } from './fixtures';

const PASSWORD = 'smtp-password-never-shown';
const mail = { SMTP_URL: `smtps://inviter:${PASSWORD}@mail.example.com:465`, SMTP_FROM: 'Entia <no-reply@example.com>', APP_URL: 'https://entu.example.com' };

/** Invitations' e-mail settings (issue 33, item 5). */
describe('SMTP_URL, SMTP_FROM, APP_URL', () => {
  it('are off by default', () => {
    expect(loadConfig(required)).toMatchObject({ SMTP_URL: 'none', SMTP_FROM: 'none', APP_URL: 'none' });
  });

  it('are read together, smtp:// or smtps://, with or without a login', () => {
    expect(loadConfig({ ...required, ...mail })).toMatchObject(mail);
    expect(loadConfig({ ...required, ...mail, SMTP_URL: 'smtp://127.0.0.1:1025' }).SMTP_URL).toBe('smtp://127.0.0.1:1025');
    // APP_URL alone: the inviter gets the link.
    expect(loadConfig({ ...required, APP_URL: mail.APP_URL }).APP_URL).toBe(mail.APP_URL);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['SMTP_URL without SMTP_FROM', { SMTP_URL: mail.SMTP_URL, APP_URL: mail.APP_URL }, /SMTP_FROM is required/],
    ['SMTP_URL without APP_URL', { SMTP_URL: mail.SMTP_URL, SMTP_FROM: mail.SMTP_FROM }, /APP_URL is required/],
    ['another scheme', { ...mail, SMTP_URL: `http://inviter:${PASSWORD}@mail.example.com` }, /SMTP_URL/],
    ['a path', { ...mail, SMTP_URL: `smtp://inviter:${PASSWORD}@mail.example.com/x` }, /SMTP_URL is smtp/],
    ['a query', { ...mail, SMTP_URL: `smtp://inviter:${PASSWORD}@mail.example.com?secure=false` }, /SMTP_URL is smtp/],
    ['no host', { ...mail, SMTP_URL: 'smtp://' }, /SMTP_URL/],
    ['a From with a line break', { ...mail, SMTP_FROM: 'a@example.com\r\nBcc: b@example.com' }, /SMTP_FROM/],
    ['an APP_URL with a query', { ...mail, APP_URL: 'https://entu.example.com/?x=1' }, /APP_URL/],
    ['an APP_URL that is no URL', { ...mail, APP_URL: 'entu.example.com' }, /APP_URL/],
  ])('%s: refused, the password never shown', (_name, env, message) => {
    const refused = failure({ ...required, ...env });
    expect(refused).toMatch(message);
    expect(refused).not.toContain(PASSWORD);
  });
});
