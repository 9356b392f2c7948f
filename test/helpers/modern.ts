/**
 * What a 2026-07-28 request carries: the per-request `_meta` envelope and the standard headers,
 * for the suites of that era (docs/http-contract.md, "The 2026-07-28 era").
 */

import { beforeAll } from 'vitest';
import { PACKAGE_VERSION, SUPPORTED_VERSIONS } from '../../src/versions.js';
import { createWorld, type World } from './apps.js';
import { type CoreClient, startWorldCore } from './core.js';
import type { Headers } from './hosts.js';
import { request, rpcError } from './rpc.js';

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

/**
 * The set-up of the 2026-07-28 suites: the world's core, made before the tests (`suite` is filled
 * in then), and the requests they send.
 */
export function useModernCore() {
  const suite = {} as { world: World; core: CoreClient };
  beforeAll(async () => {
    Object.assign(suite, await startWorldCore(createWorld));
  });
  /** Hands the core a request with `headers`, for the Text Stats server unless `code` says otherwise. */
  const post = (payload: unknown, headers: Headers, code = suite.world.codes.textStats) =>
    suite.core.post(code, payload, headers);
  /** A modern request: `params._meta` gets the envelope unless the params carry their own. */
  const modern = (id: number | string, method: string, params: Record<string, unknown> = {}) =>
    request(id, method, { _meta: envelope(), ...params });
  const call = (id: number | string, args: Record<string, unknown> = { text: 'one two' }, name = TOOL) =>
    modern(id, 'tools/call', { name, arguments: args });
  return { suite, post, modern, call };
}
