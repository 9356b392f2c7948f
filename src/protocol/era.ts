import { isJsonObject } from '../util/plain-object.js';
import { FIRST_MODERN_VERSION } from '../versions.js';

/** The `_meta` key that carries a modern request's protocol version (MCP 2026-07-28). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
/** The client's capabilities for this one request; required on every modern request. */
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** Who the client is (a SHOULD, never required). */
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
/** Where a modern result names the server (spec PR #3002: servers SHOULD include it on every result). */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/** The log level a client opts into for one request. */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

const DATE_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** RFC 9110 §5.5: a field value is read without the optional whitespace around it; empty = absent. */
export function headerValue(value: string | undefined): string | undefined {
  const trimmed = value?.replace(/^[ \t]+|[ \t]+$/g, '');
  return trimmed === '' ? undefined : trimmed;
}

/** The `params._meta` object of a message, when it has one. */
export function metaOf(payload: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(payload)) return undefined;
  const params = payload.params;
  if (!isJsonObject(params)) return undefined;
  const meta = params._meta;
  return isJsonObject(meta) ? meta : undefined;
}

/**
 * Whether a message claims the 2026-07-28 per-request envelope: its `params._meta` has the
 * protocol-version key, whatever its value (a bad value is then a modern validation error, never a
 * silent fall back to the legacy handshake).
 */
export function hasEnvelopeClaim(payload: unknown): boolean {
  const meta = metaOf(payload);
  return meta !== undefined && META_PROTOCOL_VERSION in meta;
}

/**
 * A request is modern when it claims the per-request envelope, or its `MCP-Protocol-Version`
 * header is 2026-07-28 or later (docs/http-contract.md, "Which era a request belongs to").
 * Everything else takes the legacy path, so 2025 clients see exactly the handshake they know. Only
 * date-shaped headers compare by string order; any other value stays on the legacy path and is
 * refused there (row 11).
 */
export function isModernRequest(payload: unknown, protocolVersionHeader: string | undefined): boolean {
  const header = headerValue(protocolVersionHeader);
  if (header !== undefined && DATE_VERSION.test(header) && header >= FIRST_MODERN_VERSION) return true;
  return hasEnvelopeClaim(payload);
}
