import { McpError } from '../errors/mcp-error.js';
import { isPlainRecord } from '../util/plain-object.js';
import { describeIssues, type Message, MessageSchema, type RequestId } from './messages.js';

/**
 * A JSON-RPC message, or an invalid request (400 / -32600) that echoes the id when it is readable
 * (see `docs/http-contract.md`).
 */
export function parseMessage(payload: unknown): Message {
  if (isWellFormedMessage(payload)) return payload;
  const parsed = MessageSchema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const { text, issues } = describeIssues(parsed.error);
  throw new McpError('invalidRequest', `Invalid request: ${text}`, { issues }, readableId(payload));
}

/**
 * The envelope every well-behaved client sends, recognised without zod on the hot path: it accepts
 * nothing `MessageSchema` refuses (an object with `jsonrpc: "2.0"`, a string `method`, an id that
 * is a string, a safe integer or null, and `params` a plain record when present). Anything else goes
 * through the schema, which words the problem. The message is used as it is, not copied.
 */
function isWellFormedMessage(payload: unknown): payload is Message {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  const { jsonrpc, method, id, params } = payload as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (!(id === undefined || id === null || typeof id === 'string' || Number.isSafeInteger(id))) return false;
  return params === undefined || isPlainRecord(params);
}

function readableId(payload: unknown): RequestId | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const id = (payload as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
