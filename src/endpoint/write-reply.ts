import type { ServerResponse } from 'node:http';
import { errorBody, type McpError } from '../errors/mcp-error.js';
import { writeEmpty, writeJson } from '../express/write.js';
import type { NowReply } from '../protocol/reply.js';
import { type StreamWatcher, writeEventStream } from './event-stream.js';

/**
 * Writes what the core answered: 202 with no body, one JSON body, or an event stream, which goes on
 * being written after this returns (`watcher` learns when it ends, possibly before this returns).
 */
export function writeReply(res: ServerResponse, reply: NowReply, watcher: StreamWatcher): void {
  switch (reply.kind) {
    case 'accepted':
      writeEmpty(res, 202);
      return;
    case 'json':
      if (reply.headers)
        for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
      writeJson(res, reply.status, reply.body, reply.json === undefined ? {} : { json: reply.json });
      return;
    case 'stream':
      writeEventStream(res, reply.status, reply.headers, reply.stream, watcher);
  }
}

/** Writes an error of the transport layer (before or around the core) as its JSON-RPC envelope. */
export function writeError(res: ServerResponse, error: McpError): void {
  // A refusal's challenge (`WWW-Authenticate`) goes with it.
  if (error.headers) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  writeJson(res, error.status, errorBody(error));
}
