/**
 * docs/http-contract.md, "Batches": JSON-RPC batches, which only protocol 2025-03-26 has (header
 * absent or equal to it), driven through the protocol core.
 * Each element is handled as a single message; the reply is the array of the responses.
 */
import { describe, expect, it } from 'vitest';
import { createWorld, TEXT_STATS_TOOL, UNKNOWN_CODE } from '../helpers/apps.js';
import { worldOnCore } from '../helpers/core.js';
import * as rpc from '../helpers/rpc.js';

const TOOL = TEXT_STATS_TOOL.basic;

describe('batches', () => {
  const suite = worldOnCore(createWorld);

  const batch = (
    elements: unknown[],
    headers: Record<string, string> = {},
    code = suite.world.codes.textStats,
  ) => suite.core.post(code, elements, headers);

  it.each([
    ['without a protocol header', {}],
    ['with MCP-Protocol-Version: 2025-03-26', { 'mcp-protocol-version': '2025-03-26' }],
  ])('a batch %s answers with the array of responses, in order', async (_label, headers) => {
    const reply = await batch(
      [
        rpc.request(1, 'ping'),
        rpc.notification('notifications/initialized'),
        rpc.request('two', 'tools/list'),
        rpc.request(0, 'tools/call', { name: 'Text_Stats', arguments: { text: 'a b c' } }),
      ],
      headers,
    );
    rpc.expectRpcReply(reply, 200, [
      rpc.rpcResult(1, {}),
      rpc.rpcResult('two', { tools: [TOOL] }),
      rpc.rpcResult(0, {
        content: [{ type: 'text', text: JSON.stringify({ word_count: 3, top_words: ['a', 'b', 'c'] }) }],
        isError: false,
      }),
    ]);
    expect(suite.world.runs.map((run) => run.protocolVersion)).toEqual(['2025-03-26']);
  });

  it('a batch of notifications only answers 202 with an empty body', async () => {
    const reply = await batch([
      rpc.notification('notifications/initialized'),
      rpc.notification('notifications/cancelled', { requestId: 'none' }),
    ]);
    rpc.expectAccepted(reply);
  });

  it('a batch of more than 100 messages answers 400 -32600; 100 are served', async () => {
    const elements = Array.from({ length: 101 }, (_, i) => rpc.request(i + 1, 'ping'));
    rpc.expectRpcError(
      await batch(elements),
      400,
      null,
      -32600,
      'Invalid request: a batch holds at most 100 messages',
    );
    const hundred = await batch(elements.slice(0, 100));
    expect(hundred.status).toBe(200);
    expect((hundred.json as unknown[]).length).toBe(100);
  });

  it('an empty batch answers 400 -32600', async () => {
    rpc.expectRpcError(await batch([]), 400, null, -32600, 'Invalid request: an empty batch');
  });

  it('initialize inside a batch is an invalid request; the other elements are served', async () => {
    const reply = await batch([
      rpc.request('i', 'initialize', { protocolVersion: '2025-03-26', capabilities: {} }),
      rpc.request('p', 'ping'),
    ]);
    rpc.expectRpcReply(reply, 200, [
      rpc.rpcError('i', -32600, 'Invalid request: initialize cannot be part of a batch'),
      rpc.rpcResult('p', {}),
    ]);
  });

  it('each element is checked on its own: invalid ones get their own error', async () => {
    const reply = await batch([
      { jsonrpc: '2.0', id: 3 },
      5,
      { jsonrpc: '2.0', method: 'tools/list' },
      rpc.request('x', 'prompts/list'),
      rpc.request('y', 'tools/call', { name: 'nope' }),
      rpc.request('z', 'ping'),
    ]);
    rpc.expectRpcReply(reply, 200, [
      rpc.rpcError(3, -32600, 'Invalid request: method: method must be a string', {
        issues: [{ path: 'method', message: 'method must be a string' }],
      }),
      rpc.rpcError(null, -32600, 'Invalid request: a JSON-RPC message must be a JSON object', {
        issues: [{ path: '', message: 'a JSON-RPC message must be a JSON object' }],
      }),
      rpc.rpcError(null, -32600, 'Invalid request: request id is required'),
      rpc.rpcError('x', -32601, 'Method not found: prompts/list'),
      rpc.rpcError('y', -32602, 'Unknown tool: nope'),
      rpc.rpcResult('z', {}),
    ]);
  });

  it.each(['2024-11-05', '2025-06-18', '2025-11-25', 'bogus'])(
    'with MCP-Protocol-Version: %s a batch answers 400 "batching is not supported"',
    async (version) => {
      const reply = await batch([rpc.request(1, 'ping'), rpc.request(2, 'ping')], {
        'mcp-protocol-version': version,
      });
      rpc.expectRpcError(
        reply,
        400,
        null,
        -32600,
        `Invalid request: batching is not supported in protocol version ${version}`,
      );
    },
  );

  it('a batch to an unknown server answers 404 once, with id null', async () => {
    const reply = await batch([rpc.request(1, 'ping'), rpc.request(2, 'tools/list')], {}, UNKNOWN_CODE);
    rpc.expectRpcError(reply, 404, null, -32600, 'MCP server not found');
  });

  it('a batch to an inactive server answers 404 once, with id null', async () => {
    const reply = await batch([rpc.request(1, 'ping')], {}, suite.world.codes.inactive);
    rpc.expectRpcError(reply, 404, null, -32600, 'MCP server is not active');
  });
});
