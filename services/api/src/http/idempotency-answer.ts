import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** The answer a request ended with, as it is replayed. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Kept answers are sealed (AES-256-GCM) under a key only a request carrying the same
 * `Idempotency-Key` can derive: an HMAC of the caller's scope and key under a server secret. Redis
 * sees neither the key nor the secret, so a Redis dump does not reveal the answers — among them the
 * plaintext of a newly generated API key, which must not be readable anywhere but in its response.
 * The server secrets are the JWT secrets: answers are sealed under the signing one and
 * opened with any, so a repeat reaching another API process mid-rotation is still replayed.
 */
export class AnswerSeal {
  private readonly roots: Buffer[];

  /** `secrets`: the first seals, every one opens. */
  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('no secret to seal answers with');
    // A key of its own, so these ciphertexts and the JWT signatures never share a key.
    this.roots = secrets.map((secret) => createHmac('sha256', secret).update('entia idempotency answers v1').digest());
  }

  /** The sealing keys of one caller's one idempotency key, one per server secret; the first seals. */
  keysFor(scope: string, idempotencyKey: string): Buffer[] {
    return this.roots.map((root) => createHmac('sha256', root).update(`${scope}\n${idempotencyKey}`).digest());
  }

  seal([key]: readonly Buffer[], answer: StoredAnswer): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key!, iv);
    const meta = Buffer.from(`${JSON.stringify({ status: answer.status, headers: answer.headers })}\n`);
    const sealed = Buffer.concat([cipher.update(meta), cipher.update(answer.body), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  /** Throws when the bytes were sealed with none of `keys` (or were altered). */
  open(keys: readonly Buffer[], sealed: Buffer): StoredAnswer {
    let failure: unknown;
    for (const key of keys) {
      try {
        return openWith(key, sealed);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
}

function openWith(key: Buffer, sealed: Buffer): StoredAnswer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  const newline = plain.indexOf(10);
  const meta = JSON.parse(plain.subarray(0, newline).toString('utf8')) as { status: number; headers: Record<string, string> };
  return { status: meta.status, headers: meta.headers, body: plain.subarray(newline + 1) };
}
