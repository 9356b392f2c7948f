import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';

/** AES-256-GCM (NIST SP 800-38D): a 32-byte key, a fresh 96-bit IV per value, a 128-bit tag. */
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Stored values start with their format, so another one can be added without guessing. */
const FORMAT = 'v1:';

const KEY_PROBLEM = `must be a ${KEY_BYTES}-byte Buffer or ${KEY_BYTES * 2} hexadecimal characters`;

/** The host's key, as a Buffer or as hex text (e.g. from an environment variable). */
export const encryptionKeySchema = z
  .union(
    [
      z.custom<Uint8Array>((value) => value instanceof Uint8Array && value.length === KEY_BYTES, KEY_PROBLEM),
      z.string().regex(/^[0-9a-fA-F]{64}$/, KEY_PROBLEM),
    ],
    {
      error: (issue) => (issue.input === undefined ? `is required: ${KEY_PROBLEM}` : KEY_PROBLEM),
    },
  )
  .transform((key) => (typeof key === 'string' ? Buffer.from(key, 'hex') : Buffer.from(key)));

/** Thrown when a stored value cannot be decrypted with the key the store was given. */
export class EncryptionKeyError extends Error {
  override name = 'EncryptionKeyError';
}

/** Encrypts and decrypts the secret fields of stored rows. */
export interface Sealer {
  /** `context` (the row and the column) is authenticated too: a value moved to another row does not open. */
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function sealer(key: Buffer): Sealer {
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return FORMAT + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed, context) {
      const packed = sealed.startsWith(FORMAT)
        ? Buffer.from(sealed.slice(FORMAT.length), 'base64')
        : undefined;
      if (!packed || packed.length < IV_BYTES + TAG_BYTES) throw doesNotFit();
      const decipher = createDecipheriv(ALGORITHM, key, packed.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        // GCM's tag check failed: another key, or a value that was altered.
        throw doesNotFit();
      }
    },
  };
}

const doesNotFit = () =>
  new EncryptionKeyError(
    'the encryptionKey does not fit the stored tool providers: they were encrypted with another key (or altered)',
  );
