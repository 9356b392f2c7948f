/**
 * JSON-RPC messages and the whole replies the endpoint answers them with, for every suite: those
 * that drive the core without a socket and those that run a host.
 */

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Reply } from './hosts.js';

/** The package's name and version as package.json has them, not as the sources say. */
const PACKAGE_SERVER_INFO = {
  name: 'express-app-mcp',
  version: (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version,
};

/** The whole reply of a JSON-RPC answer: status, JSON content type, and the exact envelope. */
export function expectRpcReply(reply: Reply, status: number, body: unknown): void {
  expect({ status: reply.status, contentType: reply.headers['content-type'], body: reply.json }).toEqual({
    status,
    contentType: 'application/json',
    body,
  });
  expect(reply.headers['mcp-session-id']).toBeUndefined();
}

/** The whole reply to notifications: 202, nothing else. */
export function expectAccepted(reply: Reply): void {
  expect({ status: reply.status, contentType: reply.headers['content-type'], text: reply.text }).toEqual({
    status: 202,
    contentType: undefined,
    text: '',
  });
  expect(reply.headers['mcp-session-id']).toBeUndefined();
}

/** A JSON-RPC error envelope. */
export const rpcError = (id: string | number | null, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

/** The -32602 error of params that fail `method`'s schema: the issue at `path`, in the message and in `data`. */
export const invalidParams = (id: string | number | null, method: string, path: string, issue: string) =>
  rpcError(id, -32602, `Invalid params for ${method}: ${path}: ${issue}`, {
    issues: [{ path, message: issue }],
  });

/** A JSON-RPC result envelope. */
export const rpcResult = (id: string | number, result: unknown) => ({ jsonrpc: '2.0', id, result });

/** A JSON-RPC request. */
export const request = (id: string | number | null, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

/** A JSON-RPC notification. */
export const notification = (method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

/** A valid `ping` whose JSON text is exactly `size` bytes long. */
export function pingOfSize(size: number, id: number | string = 1): string {
  const bare = JSON.stringify({ ...request(id, 'ping'), params: { pad: '' } });
  const padding = size - Buffer.byteLength(bare);
  if (padding < 0) throw new Error(`a ping cannot be ${size} bytes`);
  return JSON.stringify({ ...request(id, 'ping'), params: { pad: 'x'.repeat(padding) } });
}

/** The whole reply of a JSON-RPC result: 200, JSON, and the exact envelope. */
export const expectRpcResult = (reply: Reply, id: string | number, result: unknown): void =>
  expectRpcReply(reply, 200, rpcResult(id, result));

/** The whole reply of a JSON-RPC error: the status, JSON, and the exact envelope. */
export const expectRpcError = (
  reply: Reply,
  status: number,
  id: string | number | null,
  code: number,
  message: string,
  data?: unknown,
): void => expectRpcReply(reply, status, rpcError(id, code, message, data));

/** The capabilities a server declares in `initialize` from 2025-11-25 on: its tools, and tasks for `tools/call`. */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/**
 * The result of a 2025-11-25 `initialize`: the version, the capabilities, `serverInfo` (the
 * package's own unless given), and the server's description as `instructions` when it has one.
 */
export const initializeResult = (instructions?: string, serverInfo: unknown = PACKAGE_SERVER_INFO) => ({
  protocolVersion: '2025-11-25',
  capabilities: SERVER_CAPABILITIES,
  serverInfo,
  ...(instructions === undefined ? {} : { instructions }),
});
