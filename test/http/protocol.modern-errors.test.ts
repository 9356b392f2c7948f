/**
 * docs/http-contract.md, "The 2026-07-28 era", driven through the protocol core: an incomplete
 * envelope, an unsupported version, unknown or removed methods, the rows shared with the 2025 era,
 * and the 2025 handshake on the same route. Each test asserts the whole reply.
 */
import { describe, expect, it } from 'vitest';
import { DESCRIPTIONS, UNKNOWN_CODE } from '../helpers/apps.js';
import {
  ALL_VERSIONS,
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  envelope,
  MODERN,
  PROTOCOL_VERSION,
  standardHeaders,
  useModernCore,
} from '../helpers/modern.js';
import {
  expectRpcError,
  expectRpcReply,
  expectRpcResult,
  initializeResult,
  invalidParams,
  notification,
  request,
  rpcError,
} from '../helpers/rpc.js';

describe('the 2026-07-28 era: errors', () => {
  const { post, modern, call } = useModernCore();

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

      expectRpcError(reply, 400, 30, -32022, `Unsupported protocol version: ${version}`, {
        supported: ALL_VERSIONS,
        requested: version,
      });
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

      expectRpcError(
        reply,
        400,
        31,
        -32022,
        'Unsupported protocol version: 2025-11-25 (2025-11-25 is spoken through the initialize handshake, without a per-request _meta envelope)',
        { supported: ALL_VERSIONS, requested: '2025-11-25' },
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

      expectRpcError(reply, 400, null, -32022, 'Unsupported protocol version: 2099-01-01', {
        supported: ALL_VERSIONS,
        requested: '2099-01-01',
      });
    });
  });

  describe('unknown or removed methods: 404 / -32601', () => {
    it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])(
      '%s, removed in 2026-07-28',
      async (method) => {
        const reply = await post(modern(40, method), standardHeaders(method));

        expectRpcError(
          reply,
          404,
          40,
          -32601,
          `Method not found: ${method} (removed in protocol 2026-07-28)`,
        );
      },
    );

    it.each(['resources/list', 'prompts/list', 'prompts/get', 'completion/complete', 'unknown/method'])(
      '%s, which this server does not offer',
      async (method) => {
        const reply = await post(modern('m', method), standardHeaders(method));

        expectRpcError(reply, 404, 'm', -32601, `Method not found: ${method}`);
      },
    );

    it('the id 0 is echoed', async () => {
      const reply = await post(modern(0, 'ping'), standardHeaders('ping'));

      expectRpcError(reply, 404, 0, -32601, 'Method not found: ping (removed in protocol 2026-07-28)');
    });
  });

  describe('rows shared with the legacy era, on the modern path', () => {
    it('params that fail tools/call are an in-band -32602 (HTTP 200)', async () => {
      const reply = await post(modern(50, 'tools/call', { arguments: {} }), standardHeaders('tools/call'));

      expectRpcReply(reply, 200, invalidParams(50, 'tools/call', 'name', 'name must be a string'));
    });

    it('an unknown tool is an in-band -32602 (HTTP 200)', async () => {
      const reply = await post(call(51, {}, 'nope'), standardHeaders('tools/call', 'nope'));

      expectRpcError(reply, 200, 51, -32602, 'Unknown tool: nope');
    });

    it('an unknown server code is 404 with the id echoed', async () => {
      const reply = await post(modern(52, 'tools/list'), standardHeaders('tools/list'), UNKNOWN_CODE);

      expectRpcError(reply, 404, 52, -32600, 'MCP server not found');
    });

    it('a request without an id is an invalid request', async () => {
      const reply = await post(
        request(null, 'tools/list', { _meta: envelope() }),
        standardHeaders('tools/list'),
      );

      expectRpcError(reply, 400, null, -32600, 'Invalid request: request id is required');
    });

    it('a batch holding a 2026-07-28 request is refused, even without a protocol header', async () => {
      const reply = await post([request(54, 'ping'), modern(55, 'tools/list')], {});

      expectRpcError(
        reply,
        400,
        null,
        -32600,
        'Invalid request: a batch cannot carry 2026-07-28 requests (a per-request _meta envelope)',
      );
    });

    it('a batch with a 2026-07-28 header is refused', async () => {
      const reply = await post([modern(53, 'tools/list')], standardHeaders('tools/list'));

      expectRpcError(
        reply,
        400,
        null,
        -32600,
        'Invalid request: batching is not supported in protocol version 2026-07-28',
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

      expectRpcResult(reply, 60, initializeResult(DESCRIPTIONS.textStats));
    });

    it('a legacy unsupported MCP-Protocol-Version lists 2026-07-28 among the supported versions', async () => {
      const reply = await post(request(61, 'tools/list'), { 'mcp-protocol-version': 'v999.0.0' });

      expectRpcError(reply, 400, 61, -32600, 'Unsupported MCP-Protocol-Version: v999.0.0', {
        supported: ALL_VERSIONS,
      });
    });

    it('legacy results carry no resultType, ttlMs or cacheScope', async () => {
      const reply = await post(request(62, 'ping'), { 'mcp-protocol-version': '2025-11-25' });

      expectRpcResult(reply, 62, {});
    });
  });
});
