/**
 * docs/http-contract.md, "The 2026-07-28 era", driven through the protocol core: the shape of each
 * result, and headers that disagree with the body. Each test asserts the whole reply (status,
 * content type, the exact JSON-RPC envelope with its `data`).
 */
import { describe, expect, it } from 'vitest';
import { DESCRIPTIONS } from '../helpers/apps.js';
import {
  ALL_VERSIONS,
  CLIENT_INFO,
  envelope,
  MODERN,
  mismatch,
  PROTOCOL_VERSION,
  SERVER_INFO,
  standardHeaders,
  TOOL,
  useModernCore,
} from '../helpers/modern.js';
import { expectAccepted, expectRpcReply, notification, request, rpcResult } from '../helpers/rpc.js';

describe('the 2026-07-28 era: results and headers', () => {
  const { suite, post, modern, call } = useModernCore();

  describe('results', () => {
    it('server/discover answers versions, capabilities, instructions, cache hints and the server name', async () => {
      const reply = await post(modern(1, 'server/discover'), standardHeaders('server/discover'));

      expectRpcReply(
        reply,
        200,
        rpcResult(1, {
          resultType: 'complete',
          supportedVersions: ALL_VERSIONS,
          capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
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
        suite.world.codes.faqBot,
      );

      expectRpcReply(
        reply,
        200,
        rpcResult(2, {
          resultType: 'complete',
          supportedVersions: ALL_VERSIONS,
          capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
          ttlMs: 60_000,
          cacheScope: 'private',
          _meta: SERVER_INFO,
        }),
      );
    });

    it('tools/list carries resultType, ttlMs and cacheScope beside the one tool, and ignores a cursor', async () => {
      const legacy = await suite.core.post(suite.world.codes.textStats, request(3, 'tools/list'), {
        'mcp-protocol-version': '2025-11-25',
      });
      const reply = await post(modern(3, 'tools/list', { cursor: 'ignored' }), standardHeaders('tools/list'));

      const listed = (legacy.json as { result: { tools: Record<string, unknown>[] } }).result.tools;
      expect(listed).toHaveLength(1);
      // The same tool, without the 2025-11-25 `execution` (SEP-2663: the server decides which calls are tasks).
      const tools = listed.map(({ execution: _, ...tool }) => tool);
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
      const runsBefore = suite.world.runs.length;
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
      expect(suite.world.runs.length).toBe(runsBefore);
    });

    it('a tools/call without Mcp-Name runs nothing', async () => {
      const runsBefore = suite.world.runs.length;
      const reply = await post(call(15), standardHeaders('tools/call'));

      expectRpcReply(
        reply,
        400,
        mismatch(15, 'Missing Mcp-Name header', { header: 'Mcp-Name', received: null, expected: TOOL }),
      );
      expect(suite.world.runs.length).toBe(runsBefore);
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
});
