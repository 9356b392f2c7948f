import { describe, expect, it } from 'vitest';
import { createWorld, DESCRIPTIONS } from '../helpers/apps.js';
import { coreClient, worldOnCore } from '../helpers/core.js';
import {
  expectAccepted,
  expectRpcReply,
  initializeResult,
  notification,
  request,
  rpcResult,
} from '../helpers/rpc.js';

const CLIENT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'tester', version: '1.0' },
};
const CANCELLED = { content: [{ type: 'text', text: 'the call was cancelled' }], isError: true };

describe('methods', () => {
  const suite = worldOnCore(createWorld);

  describe('initialize', () => {
    it('answers the version, the tools capability, serverInfo and the server description as instructions', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, request(1, 'initialize', CLIENT));
      expectRpcReply(reply, 200, rpcResult(1, initializeResult(DESCRIPTIONS.textStats)));
    });

    it('a server without a description has no instructions', async () => {
      const reply = await suite.core.post(suite.world.codes.faqBot, request(1, 'initialize', CLIENT));
      expectRpcReply(reply, 200, rpcResult(1, initializeResult()));
    });

    it('serverInfo comes from the serverInfo option when given', async () => {
      const custom = coreClient(suite.world.options({ serverInfo: { name: 'acme-apps', version: '7.1.0' } }));
      const reply = await custom.post(suite.world.codes.textStats, request('i', 'initialize', CLIENT));
      expectRpcReply(
        reply,
        200,
        rpcResult('i', initializeResult(DESCRIPTIONS.textStats, { name: 'acme-apps', version: '7.1.0' })),
      );
    });
  });

  it('ping answers an empty result', async () => {
    expectRpcReply(
      await suite.core.post(suite.world.codes.textStats, request('p', 'ping')),
      200,
      rpcResult('p', {}),
    );
  });

  describe('tools/list', () => {
    const slowTool = {
      name: 'Slow',
      description: 'Takes its time',
      inputSchema: { type: 'object', properties: {}, required: [] },
    };

    it('lists exactly one tool and no nextCursor', async () => {
      expectRpcReply(
        await suite.core.post(suite.world.codes.slow, request(1, 'tools/list')),
        200,
        rpcResult(1, { tools: [slowTool] }),
      );
    });

    it('accepts a cursor and ignores it', async () => {
      const reply = await suite.core.post(
        suite.world.codes.slow,
        request(2, 'tools/list', { cursor: 'page-2' }),
      );
      expectRpcReply(reply, 200, rpcResult(2, { tools: [slowTool] }));
    });
  });

  describe('notifications/cancelled', () => {
    const call = (id: string | number, headers = {}) =>
      suite.core.post(
        suite.world.codes.slow,
        request(id, 'tools/call', { name: 'Slow', arguments: {} }),
        headers,
      );
    const cancel = (requestId: string | number, code = suite.world.codes.slow) =>
      suite.core.post(
        code,
        notification('notifications/cancelled', { requestId, reason: 'the user gave up' }),
      );

    it("aborts the in-flight call's signal; the call answers that it was cancelled", async () => {
      const reply = call('long-1');
      const { run } = await suite.world.nextSlowRun();
      expect(run.signal.aborted).toBe(false);
      expectAccepted(await cancel('long-1'));
      expect(run.signal.aborted).toBe(true);
      expectRpcReply(await reply, 200, rpcResult('long-1', CANCELLED));
    });

    it('a numeric id is cancelled by the same number, 0 included', async () => {
      const reply = call(0);
      const { run } = await suite.world.nextSlowRun();
      expectAccepted(await cancel(0));
      expect(run.signal.aborted).toBe(true);
      expectRpcReply(await reply, 200, rpcResult(0, CANCELLED));
    });

    it('a cancel for another id, an id of another type, or another server aborts nothing', async () => {
      const reply = call(1);
      const slow = await suite.world.nextSlowRun();
      expectAccepted(await cancel(2));
      expectAccepted(await cancel('1'));
      expectAccepted(await cancel(1, suite.world.codes.textStats));
      const abortedBeforeRelease = slow.release('finished');
      expect(abortedBeforeRelease).toBe(false);
      expectRpcReply(
        await reply,
        200,
        rpcResult(1, { content: [{ type: 'text', text: 'finished' }], isError: false }),
      );
    });

    it('a cancel after the call finished is accepted and changes nothing', async () => {
      const reply = call('done', { 'mcp-protocol-version': '2025-06-18' });
      (await suite.world.nextSlowRun()).release('all done');
      expectRpcReply(
        await reply,
        200,
        rpcResult('done', {
          content: [{ type: 'text', text: 'all done' }],
          structuredContent: { answer: 'all done' },
          isError: false,
        }),
      );
      expectAccepted(await cancel('done'));
    });
  });
});
