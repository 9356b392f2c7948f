/**
 * What a 2026-07-28 request carries: the per-request `_meta` envelope and the standard headers,
 * for the suites of that era (docs/http-contract.md, "The 2026-07-28 era").
 */
import { SUPPORTED_VERSIONS } from '../../src/protocol/versions.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { type Headers, rpcError } from './hosts.js';

export const MODERN = '2026-07-28';
export const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO = {
  'io.modelcontextprotocol/serverInfo': { name: 'express-app-mcp', version: PACKAGE_VERSION },
};
export const ALL_VERSIONS = [...SUPPORTED_VERSIONS];
export const TOOL = 'Text_Stats';

/** A complete 2026-07-28 envelope; `overrides` replace or (with `undefined`) remove keys. */
export function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [PROTOCOL_VERSION]: MODERN,
    [CLIENT_CAPABILITIES]: {},
    [CLIENT_INFO]: { name: 'raw-client', version: '1.0.0' },
    ...overrides,
  };
  for (const [key, value] of Object.entries(meta)) if (value === undefined) delete meta[key];
  return meta;
}

/** The standard headers a 2026-07-28 client sends for a method (and a tool name on tools/call). */
export const standardHeaders = (method: string, name?: string): Headers => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  'mcp-name': name,
});

export const mismatch = (id: number | string | null, message: string, data: unknown) =>
  rpcError(id, -32020, `Header mismatch: ${message}`, data);
