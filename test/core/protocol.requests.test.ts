/**
 * docs/http-contract.md, rows 10 to 20: well-formed JSON-RPC messages, and what the endpoint answers
 * for each kind of server, method and failure, driven through the protocol core. Every reply is
 * checked whole (status, content type, envelope).
 */
import { describe, expect, it } from 'vitest';
import {
  createWorld,
  RESOLVER_FAILS_CODE,
  RESOLVER_FAILURE,
  STORE_FAILURE,
  UNKNOWN_CODE,
} from '../helpers/apps.js';
import { coreClient, worldOnCore } from '../helpers/core.js';
import type { Reply } from '../helpers/hosts.js';
import {
  expectAccepted,
  expectRpcError,
  expectRpcReply,
  invalidParams,
  notification,
  request,
  rpcError,
} from '../helpers/rpc.js';

const SUPPORTED = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const INITIALIZE = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'tester', version: '1.0' },
};

describe('JSON-RPC requests', () => {
  const suite = worldOnCore(createWorld);

  describe('row 10: a request needs an id', () => {
    const idRequired = rpcError(null, -32600, 'Invalid request: request id is required');

    it.each(['tools/list', 'tools/call', 'initialize', 'ping'])(
      '%s without an id answers 400',
      async (method) => {
        expectRpcReply(
          await suite.core.post(suite.world.codes.textStats, { jsonrpc: '2.0', method }),
          400,
          idRequired,
        );
      },
    );

    it('a request with id null answers 400 with id null', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, request(null, 'tools/list'));
      expectRpcReply(reply, 400, idRequired);
    });

    it('an unknown method without an id that is not a notification answers 400', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, {
        jsonrpc: '2.0',
        method: 'tools/frobnicate',
      });
      expectRpcReply(reply, 400, idRequired);
    });
  });

  describe('row 11: an unsupported MCP-Protocol-Version header', () => {
    it.each([
      ['an unknown date', '2025-01-01', 'x-1'],
      ['not a date', 'latest', 0],
      ['a date written differently', '2025-6-18', 12],
    ])('%s answers 400, lists the supported versions and echoes the id', async (_label, version, id) => {
      const reply = await suite.core.post(suite.world.codes.textStats, request(id, 'tools/list'), {
        'mcp-protocol-version': version,
      });
      expectRpcError(reply, 400, id, -32600, `Unsupported MCP-Protocol-Version: ${version}`, {
        supported: SUPPORTED,
      });
    });

    it('is checked before the server code is looked up', async () => {
      const reply = await suite.core.post(UNKNOWN_CODE, request(3, 'ping'), {
        'mcp-protocol-version': 'bogus',
      });
      expectRpcError(reply, 400, 3, -32600, 'Unsupported MCP-Protocol-Version: bogus', {
        supported: SUPPORTED,
      });
    });
  });

  describe('rows 12-15: the server behind the code', () => {
    it.each([
      ['an unknown code', () => UNKNOWN_CODE, 404, -32600, 'MCP server not found'],
      ['a string that cannot be a code', () => 'not-a-code', 404, -32600, 'MCP server not found'],
      ['an inactive server', () => suite.world.codes.inactive, 404, -32600, 'MCP server is not active'],
      ['a server whose app is gone', () => suite.world.codes.appGone, 404, -32600, 'app not found'],
      [
        'a server whose app is unavailable',
        () => suite.world.codes.unavailable,
        503,
        -32603,
        'app is unavailable',
      ],
    ])('%s answers %i with the request id echoed', async (_label, code, status, rpcCode, message) => {
      for (const id of ['req-1', 0]) {
        const reply = await suite.core.post(code(), request(id, 'tools/list'));
        expectRpcError(reply, status, id, rpcCode, message);
      }
    });

    it.each([
      ['an unknown code', () => UNKNOWN_CODE, 'MCP server not found'],
      ['an inactive server', () => suite.world.codes.inactive, 'MCP server is not active'],
      ['a server whose app is gone', () => suite.world.codes.appGone, 'app not found'],
    ])('a notification to %s answers 404 with id null', async (_label, code, message) => {
      const reply = await suite.core.post(code(), notification('notifications/initialized'));
      expectRpcError(reply, 404, null, -32600, message);
    });

    it('initialize for an unavailable app answers 503', async () => {
      const reply = await suite.core.post(
        suite.world.codes.unavailable,
        request(1, 'initialize', INITIALIZE),
      );
      expectRpcError(reply, 503, 1, -32603, 'app is unavailable');
    });

    it('nothing runs for a server that cannot serve', async () => {
      const call = request(1, 'tools/call', { name: 'Under_Maintenance', arguments: {} });
      expectRpcError(
        await suite.core.post(suite.world.codes.unavailable, call),
        503,
        1,
        -32603,
        'app is unavailable',
      );
      expect(suite.world.runs).toEqual([]);
    });
  });

  describe('row 16: notifications', () => {
    it.each([
      ['notifications/initialized', undefined],
      ['notifications/cancelled', { requestId: 'nothing-in-flight', reason: 'user' }],
      ['notifications/progress', { progressToken: 't', progress: 1 }],
      ['notifications/roots/list_changed', undefined],
      ['notifications/something_new', { any: 'thing' }],
    ])('%s answers 202 with an empty body', async (method, params) => {
      expectAccepted(await suite.core.post(suite.world.codes.textStats, notification(method, params)));
    });

    it('a notification with malformed params is still accepted', async () => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        notification('notifications/cancelled', { requestId: 1.5 }),
      );
      expectAccepted(reply);
    });
  });

  describe('row 17: methods this server does not offer', () => {
    it.each([
      'resources/list',
      'resources/read',
      'resources/templates/list',
      'prompts/list',
      'prompts/get',
      'completion/complete',
      'logging/setLevel',
      'sampling/createMessage',
      'no/such/method',
    ])('%s answers 200 with -32601', async (method) => {
      const reply = await suite.core.post(suite.world.codes.textStats, request('m', method, {}));
      expectRpcError(reply, 200, 'm', -32601, `Method not found: ${method}`);
    });
  });

  describe('row 18: a tool name that is not this server’s', () => {
    it('answers 200 with -32602 and runs nothing', async () => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        request(8, 'tools/call', { name: 'FAQ_Bot', arguments: {} }),
      );
      expectRpcError(reply, 200, 8, -32602, 'Unknown tool: FAQ_Bot');
      expect(suite.world.runs).toEqual([]);
    });

    it('the tool name is matched exactly, not case-insensitively', async () => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        request(9, 'tools/call', { name: 'text_stats', arguments: {} }),
      );
      expectRpcError(reply, 200, 9, -32602, 'Unknown tool: text_stats');
    });
  });

  describe('row 19: params that fail the method schema', () => {
    it('tools/call without name answers 200 with -32602 and the issues in data', async () => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        request(10, 'tools/call', { arguments: {} }),
      );
      expectRpcReply(reply, 200, invalidParams(10, 'tools/call', 'name', 'name must be a string'));
    });

    it('tools/call with arguments that are not an object answers -32602', async () => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        request('a', 'tools/call', { name: 'Text_Stats', arguments: ['hello'] }),
      );
      expectRpcReply(
        reply,
        200,
        invalidParams('a', 'tools/call', 'arguments', 'arguments must be an object'),
      );
    });

    it('initialize without protocolVersion answers -32602', async () => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        request(11, 'initialize', { capabilities: {} }),
      );
      expectRpcReply(
        reply,
        200,
        invalidParams(11, 'initialize', 'protocolVersion', 'protocolVersion is required'),
      );
    });

    it('tools/call without params at all answers -32602', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, request(12, 'tools/call'));
      expectRpcReply(reply, 200, invalidParams(12, 'tools/call', 'name', 'name must be a string'));
    });
  });

  describe('row 20: internal failures', () => {
    /** Neither the reply nor what the hook is told about the request carries a server code. */
    const expectNoCode = (reply: Reply, code: string) => {
      expect(reply.text).not.toContain(code);
      expect(JSON.stringify(suite.world.reports.map((report) => report.context))).not.toContain(code);
    };

    it('a resolver that throws answers 500 -32603 "Internal error"; the hook gets the cause', async () => {
      const reply = await suite.core.post(RESOLVER_FAILS_CODE, request('r', 'tools/list'));
      expectRpcError(reply, 500, 'r', -32603, 'Internal error');
      expect(suite.world.reports).toEqual([{ error: RESOLVER_FAILURE, context: { phase: 'resolve' } }]);
      expectNoCode(reply, RESOLVER_FAILS_CODE);
      expect(reply.text).not.toContain('database is down');
    });

    it('a resolver that throws on a notification answers 500 with id null', async () => {
      const reply = await suite.core.post(RESOLVER_FAILS_CODE, notification('notifications/initialized'));
      expectRpcError(reply, 500, null, -32603, 'Internal error');
      expect(suite.world.reports).toEqual([{ error: RESOLVER_FAILURE, context: { phase: 'resolve' } }]);
    });

    it.each([
      ['initialize', () => request(5, 'initialize', INITIALIZE)],
      ['tools/call', () => request(5, 'tools/call', { name: 'Store_Fails', arguments: { query: 'hi' } })],
    ])(
      'a store that fails during %s answers 500 -32603; the hook gets the cause',
      async (_label, message) => {
        const reply = await suite.core.post(suite.world.codes.storeFails, message());
        expectRpcError(reply, 500, 5, -32603, 'Internal error');
        expect(suite.world.reports).toEqual([
          {
            error: STORE_FAILURE,
            context: { phase: 'dispatch', serverId: suite.world.servers.storeFails.id, appId: 'store-fails' },
          },
        ]);
        expectNoCode(reply, suite.world.codes.storeFails);
        expect(reply.text).not.toContain('connection reset');
        expect(suite.world.runs).toEqual([]);
      },
    );

    it('a hook that throws itself changes nothing in the reply', async () => {
      const throwing = coreClient(
        suite.world.options({
          onError: () => {
            throw new Error('the hook is broken too');
          },
        }),
      );
      const reply = await throwing.post(RESOLVER_FAILS_CODE, request(6, 'tools/list'));
      expectRpcError(reply, 500, 6, -32603, 'Internal error');
    });
  });
});
