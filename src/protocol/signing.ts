import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerRecord } from '../types/index.js';
import { parseJsonObject } from '../util/plain-object.js';

/**
 * Signs what the server hands a client to bring back, so that no instance keeps it: the legacy
 * era's `Mcp-Session-Id` and the 2026-07-28 `requestState` (MCP 2026-07-28 "Multi round-trip
 * requests": the state is attacker-controlled and MUST be integrity-protected). HMAC-SHA256, with a
 * key per server derived from the `signingSecret` option, or, without it, from the server's own
 * code: every instance of a farm knows it without any setup, and rotating the code voids what was
 * signed with the old one (docs/asking-a-person.md, "Signed state").
 */
export class Signer {
  readonly #secret: string | undefined;

  constructor(secret: string | undefined) {
    this.#secret = secret;
  }

  #key(server: ServerRecord): Buffer {
    return createHmac('sha256', this.#secret ?? server.serverCode)
      .update(`express-app-mcp signing key of server ${server.id}`)
      .digest();
  }

  /** `payload` as `<base64url JSON>.<base64url MAC>`: visible ASCII, as `Mcp-Session-Id` must be. */
  sign(server: ServerRecord, payload: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#mac(server, body).toString('base64url')}`;
  }

  /** The payload of a token this server signed; `null` for anything else, tampered or not ours. */
  verify(server: ServerRecord, token: unknown): Record<string, unknown> | null {
    if (typeof token !== 'string' || token.length > 4096) return null;
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.#mac(server, body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    // The MAC is over the text as sent: a token that decodes the same but reads differently is not ours.
    if (`${body}.${expected.toString('base64url')}` !== token) return null;
    return parseJsonObject(Buffer.from(body, 'base64url').toString('utf8'));
  }

  #mac(server: ServerRecord, body: string): Buffer {
    return createHmac('sha256', this.#key(server)).update(body).digest();
  }
}
