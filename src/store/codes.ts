import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const SERVER_CODE_LENGTH = 16;

/** A fresh 16-character server code (about 95 bits); `randomInt` rejects biased draws, so every character is uniform. */
export function generateServerCode(): string {
  let code = '';
  for (let i = 0; i < SERVER_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

const SERVER_CODE_PATTERN = /^[A-Za-z0-9]{16}$/;

/** Whether a string can be a server code at all; anything else is "not found" without a lookup. */
export function isWellFormedServerCode(code: string): boolean {
  return SERVER_CODE_PATTERN.test(code);
}
