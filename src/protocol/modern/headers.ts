import { McpError } from '../../errors/mcp-error.js';
import { headerValue } from '../era.js';
import type { RequestId } from '../messages.js';
import type { McpHeaders } from '../request.js';

/** The standard headers of a 2026-07-28 request, trimmed; an empty one counts as absent. */
export function readModernHeaders(headers: McpHeaders): McpHeaders {
  return {
    protocolVersion: headerValue(headers.protocolVersion),
    method: headerValue(headers.method),
    name: headerValue(headers.name),
  };
}

/** MCP 2026-07-28 transports: a header that is present must agree with the body. */
export function crossCheck(headers: McpHeaders, version: string, method: string, id: RequestId | null): void {
  if (headers.protocolVersion !== undefined && headers.protocolVersion !== version) {
    throw headerMismatch(
      `MCP-Protocol-Version header ${headers.protocolVersion} does not match the request's protocol version ${version}`,
      { header: 'MCP-Protocol-Version', received: headers.protocolVersion, expected: version },
      id,
    );
  }
  if (headers.method !== undefined && headers.method !== method) {
    throw headerMismatch(
      `Mcp-Method header ${headers.method} does not match the request method ${method}`,
      { header: 'Mcp-Method', received: headers.method, expected: method },
      id,
    );
  }
}

/** The methods whose `Mcp-Name` names a task (SEP-2663): the body's `taskId`. */
const TASK_NAMED = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** What `Mcp-Name` must say for a request: the tool of a `tools/call`, the task of a task method. */
function expectedName(method: string, params: Record<string, unknown>): string | undefined {
  const named = method === 'tools/call' ? params.name : TASK_NAMED.has(method) ? params.taskId : undefined;
  return typeof named === 'string' ? named : undefined;
}

/**
 * SEP-2243 standard headers: `MCP-Protocol-Version` and `Mcp-Method` on every request, `Mcp-Name`
 * on `tools/call` whenever the body names a tool, and on `tasks/get`, `tasks/update` and
 * `tasks/cancel` whenever it names a task (SEP-2663).
 */
export function requireHeaders(
  headers: McpHeaders,
  version: string,
  method: string,
  params: Record<string, unknown>,
  id: RequestId,
): void {
  if (headers.protocolVersion === undefined) {
    throw headerMismatch(
      'Missing MCP-Protocol-Version header',
      { header: 'MCP-Protocol-Version', received: null, expected: version },
      id,
    );
  }
  if (headers.method === undefined) {
    throw headerMismatch(
      'Missing Mcp-Method header',
      { header: 'Mcp-Method', received: null, expected: method },
      id,
    );
  }
  const toolName = expectedName(method, params);
  if (toolName === undefined) return;
  if (headers.name === undefined) {
    throw headerMismatch(
      'Missing Mcp-Name header',
      { header: 'Mcp-Name', received: null, expected: toolName },
      id,
    );
  }
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === undefined) {
    throw headerMismatch(
      'Mcp-Name header has an invalid =?base64?…?= value',
      { header: 'Mcp-Name', received: headers.name, expected: toolName },
      id,
    );
  }
  if (decoded !== toolName) {
    throw headerMismatch(
      `Mcp-Name header ${headers.name} does not match the ${method === 'tools/call' ? 'tool name' : 'task id'} ${toolName}`,
      { header: 'Mcp-Name', received: headers.name, expected: toolName },
      id,
    );
  }
}

const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * SEP-2243 value encoding: a value that is not plain ASCII travels as `=?base64?<UTF-8 bytes>?=`.
 * Anything else is taken literally. `undefined` for a sentinel whose payload is not canonical
 * Base64 of valid UTF-8.
 */
function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const payload = value.slice('=?base64?'.length, -'?='.length);
  if (!BASE64_CANONICAL.test(payload)) return undefined;
  try {
    return utf8.decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

interface MismatchData {
  header: 'MCP-Protocol-Version' | 'Mcp-Method' | 'Mcp-Name';
  /** The header's value, `null` when it was missing. */
  received: string | null;
  /** The value the body implies, `null` when no value of that header fits the request. */
  expected: string | null;
}

/** 400 / -32020: a standard header is missing or disagrees with the body. */
export function headerMismatch(text: string, data: MismatchData, id: RequestId | null): McpError {
  return new McpError('modernHeaderMismatch', `Header mismatch: ${text}`, data, id);
}
