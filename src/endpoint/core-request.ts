import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHeaders } from '../protocol/request.js';

/** The MCP transport headers of a request, as plain values (the first one when a header repeats). */
export function mcpHeaders(req: IncomingMessage): McpHeaders {
  return {
    protocolVersion: header(req, 'mcp-protocol-version'),
    method: header(req, 'mcp-method'),
    name: header(req, 'mcp-name'),
    sessionId: header(req, 'mcp-session-id'),
  };
}

/** A request header's value, the first one when it repeats. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Calls `listener` when the client closes the response before it was written in full, at once if
 * it already has (MCP 2026-07-28 makes that a cancellation); returns a function that stops watching.
 */
export function watchClose(res: ServerResponse, listener: () => void): () => void {
  if (res.closed) {
    if (!res.writableFinished) listener();
    return () => {};
  }
  // Every response closes once, so the listener stays and stopping is a flag: cheaper than
  // taking the listener off again.
  let watching = true;
  res.on('close', () => {
    if (watching && !res.writableFinished) listener();
  });
  return () => {
    watching = false;
  };
}
