import { FIRST_MODERN_VERSION } from './versions.js';

/** The `_meta` key that carries a modern request's protocol version (MCP 2026-07-28). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

const DATE_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A request is modern (SPEC §3) when its `params._meta` names a protocol version, or its
 * `MCP-Protocol-Version` header is 2026-07-28 or later. Only date-shaped headers compare by
 * string order; anything else stays on the legacy path and is refused there.
 */
export function isModernRequest(payload: unknown, headerVersion: string | undefined): boolean {
  if (
    headerVersion !== undefined &&
    DATE_VERSION.test(headerVersion) &&
    headerVersion >= FIRST_MODERN_VERSION
  ) {
    return true;
  }
  if (typeof payload !== 'object' || payload === null) return false;
  const params = (payload as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && META_PROTOCOL_VERSION in meta;
}
