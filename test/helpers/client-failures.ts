/**
 * Failures the client reports the same way in both protocol eras: what a misbehaving server sends,
 * and the whole error each request fails with.
 */
import type http from 'node:http';
import { expect } from 'vitest';
import { failure } from './remote-servers.js';

/** A `tools/call` answer: an HTML error page (503) the first time, then JSON cut short. */
export function htmlPageThenTruncated(): (res: http.ServerResponse, id: unknown) => void {
  let calls = 0;
  return (res, id) => {
    if (++calls === 1) {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1></body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[`);
  };
}

/**
 * Two calls of `echo` to the server at `url`, which answers them as `htmlPageThenTruncated` does:
 * each fails as its own reply says, the first with the status, the second as not JSON.
 */
export async function expectEachCallItsFailure(
  connection: { callTool(name: string): Promise<unknown>; close(): Promise<void> },
  url: string,
): Promise<void> {
  const first = await failure(connection.callTool('echo'));
  const second = await failure(connection.callTool('echo'));
  await connection.close();
  expect([first, second].map(({ kind, status, message }) => ({ kind, status, message }))).toEqual([
    { kind: 'http', status: 503, message: `MCP server ${url}: answered HTTP 503 with an HTML page` },
    {
      kind: 'invalid-reply',
      status: undefined,
      message: `MCP server ${url}: answered tools/call with a body that is not JSON`,
    },
  ]);
}
