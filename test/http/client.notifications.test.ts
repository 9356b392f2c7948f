/**
 * In the 2025 era, a reply to a notification is never parsed as a message. MCP 2025-03-26 (transports) wants
 * `202 Accepted` with no body, but real servers answer `notifications/initialized` in many other
 * ways; clients that validated those bodies as JSON-RPC messages could not add such servers at all.
 * Each hand-written server here answers requests correctly and notifications its own way.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcpServer } from '../../src/index.js';
import {
  answerRequest,
  expectListsAndEchoes,
  type RemoteServer,
  startRawServer,
} from '../helpers/remote-servers.js';

type Reply = (res: http.ServerResponse, body: string) => void;

const json =
  (status: number, text: string): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };

const WAYS: [string, Reply][] = [
  ['200 with {}', json(200, '{}')],
  ['200 with null', json(200, 'null')],
  [
    '200 with an empty body',
    (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' });
      res.end();
    },
  ],
  [
    '200 with an echo of the notification',
    (res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    },
  ],
  [
    '202 with an empty body',
    (res) => {
      res.writeHead(202);
      res.end();
    },
  ],
  [
    '204 with Content-Type text/html',
    (res) => {
      res.writeHead(204, { 'content-type': 'text/html; charset=utf-8' });
      res.end();
    },
  ],
  [
    '200 with an event stream that ends without an event',
    (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(': nothing to say\n\n');
    },
  ],
  [
    '400 with a JSON-RPC error (the server wanted an id)',
    json(400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id is required"}}'),
  ],
];

describe('servers that answer notifications/initialized in their own way', () => {
  let server: RemoteServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each(WAYS)('%s: connects, lists and calls', async (_name, reply) => {
    server = await startRawServer((message, res, req, body) => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        res.end();
        return;
      }
      if (!answerRequest(message, res)) reply(res, body);
    });

    const connection = await connectMcpServer(server.url, { timeoutMs: 3000, protocol: '2025' });
    await expectListsAndEchoes(connection, {});

    expect(connection.serverInfo).toEqual({ name: 'hand-written', version: '0.0.1' });
    expect(server.methods()).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
    // No other request: nothing was retried, no optional stream was opened.
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST', 'POST']);
  });
});
