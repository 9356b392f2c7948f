import { createHash } from 'node:crypto';

/**
 * Server codes hashed at rest (docs/keys.md): the stored form of a code is its SHA-256 in hex. A
 * code has about 95 random bits, so an unsalted hash cannot be reversed by guessing, and it stays
 * one indexed lookup.
 */
export const hashServerCode = (code: string): string => createHash('sha256').update(code).digest('hex');

const HASHED = /^[0-9a-f]{64}$/;

/** Whether a stored `server_code` is a hash (64 hex characters) rather than a code (16). */
export const isHashedCode = (stored: string): boolean => HASHED.test(stored);

/** What `code_hint` holds: the code's first four characters. */
export const codeHintOf = (code: string): string => code.slice(0, 4);
