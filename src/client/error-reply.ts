import { isJsonObject } from '../util/plain-object.js';
import { withDeadline } from './deadline.js';
import { RemoteMcpError } from './errors.js';
import { contentTypeOf } from './replies.js';

/** The most of an error reply's body read for its JSON-RPC error; a larger body is not quoted. */
const ERROR_BODY_LIMIT = 64 * 1024;
/** How long the body of an error reply may take to arrive, in ms, before it is given up. */
const ERROR_BODY_MS = 2000;
/** The most of the server's message an error quotes, in characters. */
const MESSAGE_LIMIT = 300;

/** The JSON-RPC error an error reply carries. */
export interface RpcErrorBody {
  code: number | undefined;
  message: string;
}

/**
 * The `RemoteMcpError` for an HTTP error status. When the reply was a JSON-RPC error (as MCP
 * servers answer their error statuses, docs/http-contract.md), its message follows the status:
 * "answered HTTP 404: MCP server not found"; an HTML page is described, never quoted.
 */
export function httpError(server: string, response: Response, rpc?: RpcErrorBody): RemoteMcpError {
  const page = contentTypeOf(response) === 'text/html' ? ' with an HTML page' : '';
  const said = rpc ? `: ${rpc.message}` : '';
  return new RemoteMcpError(server, 'http', `answered HTTP ${response.status}${page}${said}`, {
    status: response.status,
    ...(rpc?.code === undefined ? {} : { rpcCode: rpc.code }),
  });
}

/**
 * The JSON-RPC error in an error reply's body, read up to `ERROR_BODY_LIMIT` bytes and for at most
 * `ERROR_BODY_MS`; `undefined` for any other body, or one that does not come. The body is used up:
 * pass a clone to keep it.
 */
export async function readRpcError(response: Response): Promise<RpcErrorBody | undefined> {
  if (contentTypeOf(response) !== 'application/json' || !response.body) return undefined;
  const reader = response.body.getReader();
  try {
    const text = await withDeadline(readUpTo(reader), ERROR_BODY_MS, () => new Error('slow body'));
    const envelope: unknown = text === undefined ? undefined : JSON.parse(text);
    const error = isJsonObject(envelope) ? envelope.error : undefined;
    if (!isJsonObject(error) || typeof error.message !== 'string') return undefined;
    const message = quotable(error.message);
    if (message === '') return undefined;
    return { code: Number.isInteger(error.code) ? (error.code as number) : undefined, message };
  } catch {
    return undefined;
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** The body as text, or `undefined` when it is larger than `ERROR_BODY_LIMIT`. */
async function readUpTo(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks).toString('utf8');
    size += value.byteLength;
    if (size > ERROR_BODY_LIMIT) return undefined;
    chunks.push(value);
  }
}

/** The server's words on one line, without control characters, cut to `MESSAGE_LIMIT`. */
function quotable(message: string): string {
  const line = message.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT)}…` : line;
}
