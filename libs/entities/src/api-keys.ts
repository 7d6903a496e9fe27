import { createHash, randomBytes } from 'node:crypto';

/** SHA-256 of a key, hex: what is stored, indexed and compared; the key itself never is. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new API key: 32 random bytes, base64url (SPEC §6), and its hash. */
export function generateApiKey(): { plaintext: string; hash: string } {
  const plaintext = randomBytes(32).toString('base64url');
  return { plaintext, hash: hashApiKey(plaintext) };
}
