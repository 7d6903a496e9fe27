/** One HS256 secret the API's tokens are signed or verified with, named by the `kid` its tokens carry. */
export interface JwtSecret {
  kid: string;
  secret: string;
}

/** The key id `JWT_SECRET` stands for: `JWT_SECRET=s` is `JWT_SECRETS=default:s`. */
export const JWT_SECRET_KID = 'default';

const KID = /^[A-Za-z0-9_-]{1,32}$/;
const MIN_SECRET_LENGTH = 32;
// A handful is all a rotation needs (old, new, perhaps one more); a token without a key id is
// tried against each (tokens issued before key ids), so the list is kept short.
const MAX_SECRETS = 8;

/**
 * The secrets of `JWT_SECRETS` (`kid:secret,kid:secret`, the first signs, every one verifies) or of
 * `JWT_SECRET`; exactly one of the two is set (`none`: unset). Throws an Error whose message names
 * the variable and the entry by position, never a secret nor a key id (a secret pasted the wrong way
 * round could pass for one): it ends up on stderr.
 */
export function parseJwtSecrets(settings: { JWT_SECRET: string; JWT_SECRETS: string }): JwtSecret[] {
  const single = settings.JWT_SECRET.trim() !== 'none';
  const several = settings.JWT_SECRETS.trim() !== 'none';
  if (single && several) throw new Error('JWT_SECRETS and JWT_SECRET are both set: keep only JWT_SECRETS (JWT_SECRET=s is JWT_SECRETS=default:s)');
  if (!single && !several) throw new Error('JWT_SECRETS or JWT_SECRET is required');
  if (single) {
    if (settings.JWT_SECRET.length < MIN_SECRET_LENGTH) throw new Error(`JWT_SECRET must NOT have fewer than ${MIN_SECRET_LENGTH} characters`);
    return [{ kid: JWT_SECRET_KID, secret: settings.JWT_SECRET }];
  }
  const entries = settings.JWT_SECRETS.split(',');
  if (entries.length > MAX_SECRETS) throw new Error(`JWT_SECRETS has ${entries.length} entries; at most ${MAX_SECRETS}`);
  const secrets: JwtSecret[] = [];
  entries.forEach((entry, index) => {
    const at = `JWT_SECRETS entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`${at} is not kid:secret`);
    const kid = entry.slice(0, colon).trim();
    // Used byte for byte, never trimmed: a space around it (`new:…, old:…`) would silently make a
    // secret that no other process has, so it is refused instead.
    const secret = entry.slice(colon + 1);
    if (!KID.test(kid)) throw new Error(`${at} has a key id that is not 1-32 of A-Z a-z 0-9 _ -`);
    if (secret !== secret.trim()) throw new Error(`${at} has a secret that begins or ends with white space`);
    if (secret.length < MIN_SECRET_LENGTH) throw new Error(`${at} has a secret of fewer than ${MIN_SECRET_LENGTH} characters`);
    if (secrets.some((known) => known.kid === kid)) throw new Error(`${at} repeats the key id of an earlier entry`);
    if (secrets.some((known) => known.secret === secret)) throw new Error(`${at} repeats the secret of another entry`);
    secrets.push({ kid, secret });
  });
  return secrets;
}
