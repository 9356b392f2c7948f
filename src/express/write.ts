import type { ServerResponse } from 'node:http';

/** How a JSON body is written: its exact text when it is at hand already, and its media type. */
export interface JsonWriteOptions {
  /** `JSON.stringify(body)`, when the caller has it already. */
  json?: string;
  /** Default `application/json`. */
  contentType?: string;
}

/** Writes a whole JSON reply: status, `Content-Type`, `Content-Length` and the body, in one go. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  { json = JSON.stringify(body), contentType = 'application/json' }: JsonWriteOptions = {},
): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** Writes a reply with no body (202, 204). */
export function writeEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}

/**
 * Writes messages as a server-sent event stream (the Streamable HTTP transport of MCP 2025-03-26
 * and later): one `data:` event per message, in order, as each comes. Stops early when the client
 * has gone. A failure of the sequence is the caller's to report; the stream then just ends.
 */
export async function writeEventStream(
  res: ServerResponse,
  status: number,
  messages: AsyncIterable<unknown>,
): Promise<void> {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  try {
    for await (const message of messages) {
      if (res.destroyed) break;
      // JSON.stringify writes no line breaks, so each message is one `data:` line.
      res.write(`data: ${JSON.stringify(message)}\n\n`);
    }
  } finally {
    res.end();
  }
}
