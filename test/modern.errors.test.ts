/**
 * SPEC §3 on the wire: raw HTTP against a real host on 127.0.0.1, one test per modern error row
 * and per shape of a modern result, each asserting the whole reply (status, content type, the exact
 * JSON-RPC envelope with its `data`). The legacy handshake on the same route is checked beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_VERSIONS } from '../src/protocol/versions.js';
import { PACKAGE_VERSION } from '../src/version.js';
import { createWorld, DESCRIPTIONS, UNKNOWN_CODE, type World } from './helpers/apps.js';
import {
  expectAccepted,
  expectRpcReply,
  type Headers,
  type Host,
  type HostVariant,
  hostVariants,
  notification,
  request,
  rpcError,
  rpcResult,
  startWorldHost,
} from './helpers/hosts.js';

const MODERN = '2026-07-28';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const SERVER_INFO = {
  'io.modelcontextprotocol/serverInfo': { name: 'express-app-mcp', version: PACKAGE_VERSION },
};
const ALL_VERSIONS = [...SUPPORTED_VERSIONS];
const TOOL = 'Text_Stats';

/** A complete 2026-07-28 envelope; `overrides` replace or (with `undefined`) remove keys. */
function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [PROTOCOL_VERSION]: MODERN,
    [CLIENT_CAPABILITIES]: {},
    [CLIENT_INFO]: { name: 'raw-client', version: '1.0.0' },
    ...overrides,
  };
  for (const [key, value] of Object.entries(meta)) if (value === undefined) delete meta[key];
  return meta;
}

/** The standard headers a 2026-07-28 client sends for a method (and a tool name on tools/call). */
const standardHeaders = (method: string, name?: string): Headers => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  'mcp-name': name,
});

const mismatch = (id: number | string | null, message: string, data: unknown) =>
  rpcError(id, -32020, `Header mismatch: ${message}`, data);

describe('the 2026-07-28 wire, error by error', () => {
  const variant = hostVariants[0] as HostVariant;
  let world: World;
  let host: Host;

  beforeAll(async () => {
    ({ world, host } = await startWorldHost(variant, createWorld));
  });
  afterAll(async () => {
    await host?.close();
  });

  /** POSTs a modern request: `params._meta` gets the envelope unless the params carry their own. */
  const post = (payload: unknown, headers: Headers, code = world.codes.textStats) =>
    host.post(code, payload, headers);
  const modern = (id: number | string, method: string, params: Record<string, unknown> = {}) =>
    request(id, method, { _meta: envelope(), ...params });
  const call = (id: number | string, args: Record<string, unknown> = { text: 'one two' }, name = TOOL) =>
    modern(id, 'tools/call', { name, arguments: args });

  describe('results', () => {
    it('server/discover answers versions, capabilities, instructions, cache hints and the server name', async () => {
      const reply = await post(modern(1, 'server/discover'), standardHeaders('server/discover'));

      expectRpcReply(
        reply,
        200,
        rpcResult(1, {
          resultType: 'complete',
          supportedVersions: ALL_VERSIONS,
          capabilities: { tools: {} },
          instructions: DESCRIPTIONS.textStats,
          ttlMs: 60_000,
          cacheScope: 'private',
          _meta: SERVER_INFO,
        }),
      );
    });

    it('server/discover of a server without a description has no instructions', async () => {
      const reply = await post(
        modern(2, 'server/discover'),
        standardHeaders('server/discover'),
        world.codes.faqBot,
      );

      expectRpcReply(
        reply,
        200,
        rpcResult(2, {
          resultType: 'complete',
          supportedVersions: ALL_VERSIONS,
          capabilities: { tools: {} },
          ttlMs: 60_000,
          cacheScope: 'private',
          _meta: SERVER_INFO,
        }),
      );
    });

    it('tools/list carries resultType, ttlMs and cacheScope beside the one tool, and ignores a cursor', async () => {
      const legacy = await host.post(world.codes.textStats, request(3, 'tools/list'), {
        'mcp-protocol-version': '2025-11-25',
      });
      const reply = await post(modern(3, 'tools/list', { cursor: 'ignored' }), standardHeaders('tools/list'));

      const { tools } = (legacy.json as { result: { tools: unknown[] } }).result;
      expect(tools).toHaveLength(1);
      expectRpcReply(
        reply,
        200,
        rpcResult(3, {
          resultType: 'complete',
          tools,
          ttlMs: 60_000,
          cacheScope: 'private',
          _meta: SERVER_INFO,
        }),
      );
    });

    it('tools/call carries resultType complete', async () => {
      const reply = await post(call('call-1'), standardHeaders('tools/call', TOOL));

      const outputs = { word_count: 2, top_words: ['one', 'two'] };
      expectRpcReply(
        reply,
        200,
        rpcResult('call-1', {
          resultType: 'complete',
          content: [{ type: 'text', text: JSON.stringify(outputs) }],
          structuredContent: outputs,
          isError: false,
          _meta: SERVER_INFO,
        }),
      );
    });

    it('an envelope without clientInfo is served (clientInfo is a SHOULD)', async () => {
      const reply = await post(
        request(4, 'tools/list', { _meta: envelope({ [CLIENT_INFO]: undefined }) }),
        standardHeaders('tools/list'),
      );

      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject(rpcResult(4, { resultType: 'complete', cacheScope: 'private' }));
    });

    it('an Mcp-Session-Id header is ignored and none is issued', async () => {
      const reply = await post(modern(5, 'tools/list'), {
        ...standardHeaders('tools/list'),
        'mcp-session-id': 'abc',
      });

      expect(reply.status).toBe(200);
      expect(reply.headers['mcp-session-id']).toBeUndefined();
    });

    it('Mcp-Name may carry the tool name Base64-encoded, and whitespace around header values is ignored', async () => {
      const encoded = `=?base64?${Buffer.from(TOOL).toString('base64')}?=`;
      const base64 = await post(call(6), { ...standardHeaders('tools/call'), 'mcp-name': encoded });
      const padded = await post(call(7), {
        'mcp-protocol-version': `  ${MODERN} `,
        'mcp-method': ' tools/call',
        'mcp-name': `  ${TOOL}  `,
      });

      expect([base64.status, padded.status]).toEqual([200, 200]);
      expect([base64.json, padded.json]).toMatchObject([
        { id: 6, result: { isError: false } },
        { id: 7, result: { isError: false } },
      ]);
    });

    it('a modern notification is accepted with 202', async () => {
      const reply = await post(
        notification('notifications/cancelled', { requestId: 99, _meta: envelope() }),
        {
          'mcp-protocol-version': MODERN,
          'mcp-method': 'notifications/cancelled',
        },
      );

      expectAccepted(reply);
    });
  });

  describe('headers that disagree with the body: 400 / -32020', () => {
    it('an MCP-Protocol-Version header that differs from the _meta version', async () => {
      const reply = await post(
        request(10, 'tools/list', { _meta: envelope({ [PROTOCOL_VERSION]: 'v999.0.0' }) }),
        {
          ...standardHeaders('tools/list'),
        },
      );

      expectRpcReply(
        reply,
        400,
        mismatch(
          10,
          "MCP-Protocol-Version header 2026-07-28 does not match the request's protocol version v999.0.0",
          {
            header: 'MCP-Protocol-Version',
            received: MODERN,
            expected: 'v999.0.0',
          },
        ),
      );
    });

    it('a missing MCP-Protocol-Version header', async () => {
      const reply = await post(modern(11, 'tools/list'), { 'mcp-method': 'tools/list' });

      expectRpcReply(
        reply,
        400,
        mismatch(11, 'Missing MCP-Protocol-Version header', {
          header: 'MCP-Protocol-Version',
          received: null,
          expected: MODERN,
        }),
      );
    });

    it('an Mcp-Method header that names another method', async () => {
      const reply = await post(modern(12, 'tools/list'), standardHeaders('prompts/list'));

      expectRpcReply(
        reply,
        400,
        mismatch(12, 'Mcp-Method header prompts/list does not match the request method tools/list', {
          header: 'Mcp-Method',
          received: 'prompts/list',
          expected: 'tools/list',
        }),
      );
    });

    it('an Mcp-Method header in another case (values are case-sensitive)', async () => {
      const reply = await post(modern('upper', 'tools/list'), standardHeaders('TOOLS/LIST'));

      expectRpcReply(
        reply,
        400,
        mismatch('upper', 'Mcp-Method header TOOLS/LIST does not match the request method tools/list', {
          header: 'Mcp-Method',
          received: 'TOOLS/LIST',
          expected: 'tools/list',
        }),
      );
    });

    it('a missing Mcp-Method header', async () => {
      const reply = await post(modern(13, 'tools/list'), { 'mcp-protocol-version': MODERN });

      expectRpcReply(
        reply,
        400,
        mismatch(13, 'Missing Mcp-Method header', {
          header: 'Mcp-Method',
          received: null,
          expected: 'tools/list',
        }),
      );
    });

    it('a tools/call whose Mcp-Name names another tool runs nothing', async () => {
      const runsBefore = world.runs.length;
      const reply = await post(call(14), standardHeaders('tools/call', 'wrong_tool_name'));

      expectRpcReply(
        reply,
        400,
        mismatch(14, `Mcp-Name header wrong_tool_name does not match the tool name ${TOOL}`, {
          header: 'Mcp-Name',
          received: 'wrong_tool_name',
          expected: TOOL,
        }),
      );
      expect(world.runs.length).toBe(runsBefore);
    });

    it('a tools/call without Mcp-Name runs nothing', async () => {
      const runsBefore = world.runs.length;
      const reply = await post(call(15), standardHeaders('tools/call'));

      expectRpcReply(
        reply,
        400,
        mismatch(15, 'Missing Mcp-Name header', { header: 'Mcp-Name', received: null, expected: TOOL }),
      );
      expect(world.runs.length).toBe(runsBefore);
    });

    it('an Mcp-Name with a broken =?base64?…?= value', async () => {
      const reply = await post(call(16), standardHeaders('tools/call', '=?base64?VGV4dF9TdGF0cw?='));

      expectRpcReply(
        reply,
        400,
        mismatch(16, 'Mcp-Name header has an invalid =?base64?…?= value', {
          header: 'Mcp-Name',
          received: '=?base64?VGV4dF9TdGF0cw?=',
          expected: TOOL,
        }),
      );
    });

    it('an initialize handshake sent with a 2026-07-28 header', async () => {
      const reply = await post(
        request(17, 'initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
        { 'mcp-protocol-version': MODERN },
      );

      expectRpcReply(
        reply,
        400,
        mismatch(
          17,
          'initialize is the legacy handshake and cannot be sent with MCP-Protocol-Version 2026-07-28',
          {
            header: 'MCP-Protocol-Version',
            received: MODERN,
            expected: null,
          },
        ),
      );
    });

    it('a notification whose Mcp-Method names another method, answered with a null id', async () => {
      const reply = await post(notification('notifications/cancelled', { requestId: 1, _meta: envelope() }), {
        'mcp-protocol-version': MODERN,
        'mcp-method': 'notifications/progress',
      });

      expectRpcReply(
        reply,
        400,
        mismatch(
          null,
          'Mcp-Method header notifications/progress does not match the request method notifications/cancelled',
          {
            header: 'Mcp-Method',
            received: 'notifications/progress',
            expected: 'notifications/cancelled',
          },
        ),
      );
    });
  });

  describe('an incomplete _meta envelope: 400 / -32602', () => {
    const invalid = (id: number, issues: { path: string; message: string }[]) =>
      rpcError(
        id,
        -32602,
        `Invalid params: the 2026-07-28 request envelope is not valid: ${issues
          .map(({ path, message }) => `${path}: ${message}`)
          .join('; ')}`,
        { issues },
      );

    it('no _meta at all on a request with a 2026-07-28 header', async () => {
      const reply = await post(request(20, 'server/discover', {}), standardHeaders('server/discover'));

      expectRpcReply(reply, 400, invalid(20, [{ path: '_meta', message: 'missing' }]));
    });

    it('no params at all on a request with a 2026-07-28 header', async () => {
      const reply = await post(request(21, 'tools/list'), standardHeaders('tools/list'));

      expectRpcReply(reply, 400, invalid(21, [{ path: '_meta', message: 'missing' }]));
    });

    it('_meta without the protocol version', async () => {
      const reply = await post(
        request(22, 'server/discover', { _meta: envelope({ [PROTOCOL_VERSION]: undefined }) }),
        standardHeaders('server/discover'),
      );

      expectRpcReply(reply, 400, invalid(22, [{ path: `_meta.${PROTOCOL_VERSION}`, message: 'missing' }]));
    });

    it('_meta without the client capabilities', async () => {
      const reply = await post(
        request(23, 'server/discover', { _meta: envelope({ [CLIENT_CAPABILITIES]: undefined }) }),
        standardHeaders('server/discover'),
      );

      expectRpcReply(reply, 400, invalid(23, [{ path: `_meta.${CLIENT_CAPABILITIES}`, message: 'missing' }]));
    });

    it('a protocol version that is not a string, client capabilities that are not an object', async () => {
      const reply = await post(
        request(24, 'tools/list', {
          _meta: envelope({ [PROTOCOL_VERSION]: 20260728, [CLIENT_CAPABILITIES]: [] }),
        }),
        standardHeaders('tools/list'),
      );

      expectRpcReply(
        reply,
        400,
        invalid(24, [
          { path: `_meta.${PROTOCOL_VERSION}`, message: 'must be a string' },
          { path: `_meta.${CLIENT_CAPABILITIES}`, message: 'must be an object' },
        ]),
      );
    });

    it('a malformed clientInfo', async () => {
      const reply = await post(
        request(25, 'tools/list', { _meta: envelope({ [CLIENT_INFO]: { name: 'x' } }) }),
        standardHeaders('tools/list'),
      );

      expectRpcReply(
        reply,
        400,
        invalid(25, [{ path: `_meta.${CLIENT_INFO}.version`, message: 'must be a string' }]),
      );
    });
  });

  describe('an unsupported protocol version: 400 / -32022 listing every supported version', () => {
    it.each(['2099-01-01', 'v999.0.0'])('_meta and header both name %s', async (version) => {
      const reply = await post(
        request(30, 'server/discover', { _meta: envelope({ [PROTOCOL_VERSION]: version }) }),
        {
          'mcp-protocol-version': version,
          'mcp-method': 'server/discover',
        },
      );

      expectRpcReply(
        reply,
        400,
        rpcError(30, -32022, `Unsupported protocol version: ${version}`, {
          supported: ALL_VERSIONS,
          requested: version,
        }),
      );
      expect(ALL_VERSIONS).toContain(MODERN);
    });

    it('a 2025 version in a per-request envelope points to the initialize handshake', async () => {
      const reply = await post(
        request(31, 'tools/list', { _meta: envelope({ [PROTOCOL_VERSION]: '2025-11-25' }) }),
        {
          'mcp-protocol-version': '2025-11-25',
          'mcp-method': 'tools/list',
        },
      );

      expectRpcReply(
        reply,
        400,
        rpcError(
          31,
          -32022,
          'Unsupported protocol version: 2025-11-25 (2025-11-25 is spoken through the initialize handshake, without a per-request _meta envelope)',
          { supported: ALL_VERSIONS, requested: '2025-11-25' },
        ),
      );
    });

    it('a notification naming an unsupported version, answered with a null id', async () => {
      const reply = await post(
        notification('notifications/cancelled', {
          requestId: 1,
          _meta: envelope({ [PROTOCOL_VERSION]: '2099-01-01' }),
        }),
        { 'mcp-protocol-version': '2099-01-01' },
      );

      expectRpcReply(
        reply,
        400,
        rpcError(null, -32022, 'Unsupported protocol version: 2099-01-01', {
          supported: ALL_VERSIONS,
          requested: '2099-01-01',
        }),
      );
    });
  });

  describe('unknown or removed methods: 404 / -32601', () => {
    it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])(
      '%s, removed in 2026-07-28',
      async (method) => {
        const reply = await post(modern(40, method), standardHeaders(method));

        expectRpcReply(
          reply,
          404,
          rpcError(40, -32601, `Method not found: ${method} (removed in protocol 2026-07-28)`),
        );
      },
    );

    it.each(['resources/list', 'prompts/list', 'prompts/get', 'completion/complete', 'unknown/method'])(
      '%s, which this server does not offer',
      async (method) => {
        const reply = await post(modern('m', method), standardHeaders(method));

        expectRpcReply(reply, 404, rpcError('m', -32601, `Method not found: ${method}`));
      },
    );

    it('the id 0 is echoed', async () => {
      const reply = await post(modern(0, 'ping'), standardHeaders('ping'));

      expectRpcReply(
        reply,
        404,
        rpcError(0, -32601, 'Method not found: ping (removed in protocol 2026-07-28)'),
      );
    });
  });

  describe('rows shared with the legacy era, on the modern path', () => {
    it('params that fail tools/call are an in-band -32602 (HTTP 200)', async () => {
      const reply = await post(modern(50, 'tools/call', { arguments: {} }), standardHeaders('tools/call'));

      expectRpcReply(
        reply,
        200,
        rpcError(50, -32602, 'Invalid params for tools/call: name: name must be a string', {
          issues: [{ path: 'name', message: 'name must be a string' }],
        }),
      );
    });

    it('an unknown tool is an in-band -32602 (HTTP 200)', async () => {
      const reply = await post(call(51, {}, 'nope'), standardHeaders('tools/call', 'nope'));

      expectRpcReply(reply, 200, rpcError(51, -32602, 'Unknown tool: nope'));
    });

    it('an unknown server code is 404 with the id echoed', async () => {
      const reply = await post(modern(52, 'tools/list'), standardHeaders('tools/list'), UNKNOWN_CODE);

      expectRpcReply(reply, 404, rpcError(52, -32600, 'MCP server not found'));
    });

    it('a request without an id is an invalid request', async () => {
      const reply = await post(
        request(null, 'tools/list', { _meta: envelope() }),
        standardHeaders('tools/list'),
      );

      expectRpcReply(reply, 400, rpcError(null, -32600, 'Invalid request: request id is required'));
    });

    it('a batch holding a 2026-07-28 request is refused, even without a protocol header', async () => {
      const reply = await post([request(54, 'ping'), modern(55, 'tools/list')], {});

      expectRpcReply(
        reply,
        400,
        rpcError(
          null,
          -32600,
          'Invalid request: a batch cannot carry 2026-07-28 requests (a per-request _meta envelope)',
        ),
      );
    });

    it('a batch with a 2026-07-28 header is refused', async () => {
      const reply = await post([modern(53, 'tools/list')], standardHeaders('tools/list'));

      expectRpcReply(
        reply,
        400,
        rpcError(null, -32600, 'Invalid request: batching is not supported in protocol version 2026-07-28'),
      );
    });
  });

  describe('the legacy handshake on the same route', () => {
    it('an initialize asking for 2026-07-28 is answered with 2025-11-25 (2026-07-28 has no handshake)', async () => {
      const reply = await post(
        request(60, 'initialize', {
          protocolVersion: MODERN,
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
        {},
      );

      expectRpcReply(
        reply,
        200,
        rpcResult(60, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'express-app-mcp', version: PACKAGE_VERSION },
          instructions: DESCRIPTIONS.textStats,
        }),
      );
    });

    it('a legacy unsupported MCP-Protocol-Version lists 2026-07-28 among the supported versions', async () => {
      const reply = await post(request(61, 'tools/list'), { 'mcp-protocol-version': 'v999.0.0' });

      expectRpcReply(
        reply,
        400,
        rpcError(61, -32600, 'Unsupported MCP-Protocol-Version: v999.0.0', { supported: ALL_VERSIONS }),
      );
    });

    it('legacy results carry no resultType, ttlMs or cacheScope', async () => {
      const reply = await post(request(62, 'ping'), { 'mcp-protocol-version': '2025-11-25' });

      expectRpcReply(reply, 200, rpcResult(62, {}));
    });
  });
});
