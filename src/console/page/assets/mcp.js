import { CLIENT_CAPABILITIES } from './ask.js';
import { eventData } from './sse.js';

/**
 * The page as an MCP client of a published server, on the same origin, with plain `fetch`. It
 * speaks the 2026-07-28 revision: every request stands alone (no initialize handshake, no session),
 * and a run that needs a person answers with a result to continue from, rather than a request on
 * the stream (docs/http-contract.md, "The 2026-07-28 era: stateless requests").
 */
export const PROTOCOL_VERSION = '2026-07-28';

/** A JSON-RPC error, or a reply that is not one. */
export class McpError extends Error {
  /**
   * @param {string} message
   * @param {number} [code]
   */
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

let lastId = 0;

/**
 * Sends one request and resolves to its result. Messages that come first on a streamed reply
 * (progress notifications) go to `onMessage`; aborting `signal` closes the stream, which cancels the
 * run in this revision.
 * @param {string} url
 * @param {string} method
 * @param {Record<string, any>} params
 * @param {{ signal?: AbortSignal, onMessage?: (message: any) => void }} [options]
 * @returns {Promise<any>}
 */
export async function mcpRequest(url, method, params, { signal, onMessage } = {}) {
  const id = ++lastId;
  /** @type {Record<string, string>} */
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
    'Mcp-Method': method,
  };
  if (method === 'tools/call') headers['Mcp-Name'] = params.name;
  const _meta = {
    ...params._meta,
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES,
    'io.modelcontextprotocol/clientInfo': { name: 'express-app-mcp console page', version: '1' },
  };
  // No cookies and no console token: the server is reached exactly as any client reaches it.
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
    credentials: 'omit',
    cache: 'no-store',
    signal,
  });
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream') && response.body) {
    for await (const data of eventData(response.body)) {
      const message = parse(data);
      if (message?.id === id) return outcome(message);
      if (message) onMessage?.(message);
    }
    throw new McpError('The server ended the stream without a response.');
  }
  const message = type.includes('json') ? await response.json().catch(() => undefined) : undefined;
  if (message?.id !== undefined || message?.error) return outcome(message);
  throw new McpError(`The server answered HTTP ${response.status} without a JSON-RPC reply.`);
}

/** @param {string} text */
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** @param {any} message */
function outcome(message) {
  if (message.error) throw new McpError(String(message.error.message ?? 'Unknown error'), message.error.code);
  return message.result;
}
