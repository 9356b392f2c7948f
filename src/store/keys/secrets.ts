import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * Caller key secrets look like `mcpk_<prefix>_<random>`, after GitHub's token format: a fixed
 * marker that secret scanners can match, a short prefix that names the key (stored, shown), and
 * 32 random bytes (256 bits, base64url) that are kept only as a hash.
 */
export const KEY_MARKER = 'mcpk_';
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX_LENGTH = 8;
const RANDOM_BYTES = 32;
const SECRET_PATTERN = /^mcpk_([a-z0-9]{8})_([A-Za-z0-9_-]{43})$/;

/** A fresh prefix: eight characters drawn without modulo bias. */
export function generateKeyPrefix(): string {
  let prefix = '';
  for (let i = 0; i < KEY_PREFIX_LENGTH; i++) prefix += PREFIX_ALPHABET[randomInt(PREFIX_ALPHABET.length)];
  return prefix;
}

/** A fresh secret for a key with this prefix. */
export function generateKeySecret(prefix: string): string {
  return `${KEY_MARKER}${prefix}_${randomBytes(RANDOM_BYTES).toString('base64url')}`;
}

/** The prefix of a well-formed secret, or `null`: anything else is refused without a lookup. */
export function prefixOf(secret: string): string | null {
  return SECRET_PATTERN.exec(secret)?.[1] ?? null;
}

/**
 * What is stored of a secret: its SHA-256, or its HMAC-SHA-256 with the store's `keyPepper`, so
 * that the rows alone (a leaked backup) cannot be checked against guesses without the pepper.
 */
export function hashSecret(secret: string, pepper: string | undefined): string {
  const hash = pepper === undefined ? createHash('sha256') : createHmac('sha256', pepper);
  return hash.update(secret).digest('hex');
}

/** Whether two hex hashes are equal, in time that does not depend on where they differ. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
