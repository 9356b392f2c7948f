/**
 * The server code in a header (README "Connecting clients"): `POST /mcp/server/mcp` with
 * `Authorization: Bearer <server code>` behaves exactly like `POST /mcp/server/<code>/mcp`, in
 * every situation of docs/http-contract.md and in both eras, for teams whose rules keep secrets out of URLs.
 * Without a bearer token it answers 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3) and a
 * JSON-RPC error; an unknown one is an unknown code (404).
 */
import { gzipSync } from 'node:zlib';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../../src/index.js';
import {
  createWorld,
  RESOLVER_FAILS_CODE,
  TEXT_STATS_TOOL,
  UNKNOWN_CODE,
  type World,
} from '../helpers/apps.js';
import {
  type Headers,
  type Host,
  hostVariants,
  type OutgoingRequest,
  type Reply,
  startHost,
} from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const BEARER_PATH = '/mcp/server/mcp';
const MAX_BODY_BYTES = 4096;
const MODERN = '2026-07-28';
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernHeaders = (method: string, name?: string): Headers => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  'mcp-name': name,
});

let world: World;
let host: Host;
beforeAll(async () => {
  world = await createWorld(pkg.memoryServerStore());
  host = await startHost(
    hostVariants[0] as (typeof hostVariants)[0],
    pkg,
    world.options({ maxBodyBytes: MAX_BODY_BYTES }),
  );
});
afterAll(() => host.close());

type Situation = Omit<OutgoingRequest, 'path'>;

/** The parts of a reply a client sees, for comparing the two forms. */
const seen = (reply: Reply) => ({
  status: reply.status,
  contentType: reply.headers['content-type'],
  allow: reply.headers.allow,
  text: reply.text,
});

/** Sends the same request with the code in the path and in the header. */
async function bothForms(code: string, situation: Situation): Promise<[Reply, Reply]> {
  const inPath = await host.send({ ...situation, path: host.path(code) });
  const inHeader = await host.send({
    ...situation,
    path: BEARER_PATH,
    headers: { ...situation.headers, authorization: `Bearer ${code}` },
  });
  return [inPath, inHeader];
}

const call = (id: number, args: unknown, meta?: unknown) =>
  request(id, 'tools/call', { name: 'Text_Stats', arguments: args, ...(meta ? { _meta: meta } : {}) });

/** Every row of docs/http-contract.md, "Every reply", in both eras, with the status the path form answers. */
const SITUATIONS: [string, keyof World['codes'] | 'unknown' | 'resolverFails', Situation, number][] = [
  ['row 1: GET', 'textStats', { method: 'GET' }, 405],
  ['row 1: DELETE', 'textStats', { method: 'DELETE' }, 405],
  ['row 1: PUT', 'textStats', { method: 'PUT', body: request(1, 'ping') }, 405],
  ['row 1: PATCH', 'textStats', { method: 'PATCH', body: request(1, 'ping') }, 405],
  [
    'row 2: a foreign Origin',
    'textStats',
    { body: request(1, 'ping'), headers: { origin: 'https://evil.example' } },
    403,
  ],
  [
    'row 3: a foreign Host',
    'textStats',
    { body: request(1, 'ping'), headers: { host: 'evil.example' } },
    403,
  ],
  ['row 4: not JSON', 'textStats', { body: 'x', headers: { 'content-type': 'text/plain' } }, 415],
  ['row 5: Accept refused', 'textStats', { body: request(1, 'ping'), headers: { accept: 'text/html' } }, 406],
  ['row 6: too large', 'textStats', { body: { pad: 'x'.repeat(MAX_BODY_BYTES) } }, 413],
  ['row 7: not JSON text', 'textStats', { body: '{"jsonrpc":' }, 400],
  ['row 7: empty', 'textStats', { body: '' }, 400],
  ['row 8: not JSON-RPC', 'textStats', { body: { jsonrpc: '1.0', id: 3, method: 'ping' } }, 400],
  ['row 9: a 2025-03-26 batch', 'textStats', { body: [request(1, 'ping'), request('b', 'tools/list')] }, 200],
  [
    'row 9: a batch at 2025-06-18',
    'textStats',
    { body: [request(1, 'ping')], headers: { 'mcp-protocol-version': '2025-06-18' } },
    400,
  ],
  ['row 10: no id', 'textStats', { body: { jsonrpc: '2.0', method: 'tools/list' } }, 400],
  [
    'row 11: unsupported version',
    'textStats',
    { body: request(4, 'ping'), headers: { 'mcp-protocol-version': 'bogus' } },
    400,
  ],
  ['row 12: unknown code', 'unknown', { body: request(5, 'ping') }, 404],
  ['row 13: inactive', 'inactive', { body: request(6, 'ping') }, 404],
  ['row 14: app gone', 'appGone', { body: request(7, 'ping') }, 404],
  ['row 15: app unavailable', 'unavailable', { body: request(8, 'ping') }, 503],
  [
    'row 16: a notification',
    'textStats',
    { body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    202,
  ],
  ['row 17: an unknown method', 'textStats', { body: request(9, 'resources/list') }, 200],
  ['row 18: an unknown tool', 'textStats', { body: request(10, 'tools/call', { name: 'Nope' }) }, 200],
  ['row 19: params that fail', 'textStats', { body: request(11, 'tools/call', {}) }, 200],
  ['row 20: an internal failure', 'resolverFails', { body: request(12, 'ping') }, 500],
  [
    'initialize',
    'textStats',
    {
      body: request(13, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    },
    200,
  ],
  [
    'tools/list at 2025-11-25',
    'textStats',
    { body: request(14, 'tools/list'), headers: { 'mcp-protocol-version': '2025-11-25' } },
    200,
  ],
  [
    'tools/call at 2025-06-18',
    'textStats',
    { body: call(15, { text: 'a b c' }), headers: { 'mcp-protocol-version': '2025-06-18' } },
    200,
  ],
  [
    'invalid arguments at 2025-11-25',
    'textStats',
    { body: call(16, {}), headers: { 'mcp-protocol-version': '2025-11-25' } },
    200,
  ],
  [
    'a gzip body',
    'textStats',
    { body: gzipSync(JSON.stringify(request(17, 'ping'))), headers: { 'content-encoding': 'gzip' } },
    200,
  ],
  [
    '2026-07-28 server/discover',
    'textStats',
    {
      body: request(18, 'server/discover', { _meta: modernMeta }),
      headers: modernHeaders('server/discover'),
    },
    200,
  ],
  [
    '2026-07-28 tools/call',
    'textStats',
    { body: call(19, { text: 'x y' }, modernMeta), headers: modernHeaders('tools/call', 'Text_Stats') },
    200,
  ],
  [
    '2026-07-28 without its headers',
    'textStats',
    { body: request(20, 'tools/list', { _meta: modernMeta }) },
    400,
  ],
  [
    '2026-07-28 unknown code',
    'unknown',
    { body: request(21, 'tools/list', { _meta: modernMeta }), headers: modernHeaders('tools/list') },
    404,
  ],
];

describe('the code as Authorization: Bearer on POST /mcp/server/mcp', () => {
  it.each(SITUATIONS)(
    '%s: the same reply as with the code in the path',
    async (_, codeName, situation, status) => {
      const code =
        codeName === 'unknown'
          ? UNKNOWN_CODE
          : codeName === 'resolverFails'
            ? RESOLVER_FAILS_CODE
            : world.codes[codeName];
      const [inPath, inHeader] = await bothForms(code, situation);
      expect(inPath.status).toBe(status);
      expect(seen(inHeader)).toEqual(seen(inPath));
    },
  );

  it('lists the same tool', async () => {
    const reply = await host.send({
      path: BEARER_PATH,
      body: request(1, 'tools/list'),
      headers: { authorization: `Bearer ${world.codes.textStats}`, 'mcp-protocol-version': '2025-06-18' },
    });
    expectRpcReply(reply, 200, { jsonrpc: '2.0', id: 1, result: { tools: [TEXT_STATS_TOOL.structured] } });
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['a Bearer scheme without a token', 'Bearer '],
    ['a bare token', 'abc'],
  ])('%s answers 401 with WWW-Authenticate: Bearer', async (_, authorization) => {
    for (const body of [request(1, 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }]) {
      const reply = await host.send({ path: BEARER_PATH, body, headers: { authorization } });
      expectRpcReply(
        reply,
        401,
        rpcError(null, -32600, 'Unauthorized: send the server code as Authorization: Bearer <server code>'),
      );
      expect(reply.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('the scheme is case-insensitive (RFC 9110 §11.1)', async () => {
    const reply = await host.send({
      path: BEARER_PATH,
      body: request('p', 'ping'),
      headers: { authorization: `bearer ${world.codes.textStats}` },
    });
    expectRpcReply(reply, 200, { jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('an unknown bearer is an unknown code: 404, with nothing of the code in the reply', async () => {
    const reply = await host.send({
      path: BEARER_PATH,
      body: request(2, 'ping'),
      headers: { authorization: 'Bearer NotACode0000000x' },
    });
    expectRpcReply(reply, 404, rpcError(2, -32600, 'MCP server not found'));
    expect(reply.text).not.toContain('NotACode');
  });

  it('the method is checked first: GET without a bearer is 405', async () => {
    const reply = await host.send({ method: 'GET', path: BEARER_PATH });
    expectRpcReply(reply, 405, rpcError(null, -32600, 'Method not allowed: GET; use POST'));
  });
});

describe('official clients sending the code as a header', () => {
  const headers = () => ({ Authorization: `Bearer ${world.codes.textStats}` });

  it('the v1 client (2025-11-25) connects, lists and calls the tool', async () => {
    const client = new Client({ name: 'bearer-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(BEARER_PATH, host.url), {
        requestInit: { headers: headers() },
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('express-app-mcp');
      expect((await client.listTools()).tools).toEqual([TEXT_STATS_TOOL.withIcons]);
      const result = await client.callTool({ name: 'Text_Stats', arguments: { text: 'one two three' } });
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"word_count":3,"top_words":["one","two","three"]}' }],
        structuredContent: { word_count: 3, top_words: ['one', 'two', 'three'] },
        isError: false,
      });
    } finally {
      await client.close();
    }
  });

  it('the v2 client (2026-07-28) discovers, lists and calls the tool', async () => {
    const client = new ModernClient(
      { name: 'bearer-client', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new ModernTransport(new URL(BEARER_PATH, host.url), { requestInit: { headers: headers() } }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['Text_Stats']);
      const result = await client.callTool({ name: 'Text_Stats', arguments: { text: 'a b' } });
      expect(result.structuredContent).toEqual({ word_count: 2, top_words: ['a', 'b'] });
    } finally {
      await client.close();
    }
  });

  it('a v1 client without the header is told what to send', async () => {
    const client = new Client({ name: 'bearer-client', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(BEARER_PATH, host.url))),
    ).rejects.toThrow(/Unauthorized: send the server code as Authorization: Bearer <server code>/);
  });
});
