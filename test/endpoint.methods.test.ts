/**
 * SPEC §2.3: the methods of the legacy path (initialize, ping, tools/list, notifications/cancelled),
 * and where the router answers once mounted (SPEC §1).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Package from '../src/index.js';
import { createWorld, DESCRIPTIONS, type World } from './helpers/apps.js';
import {
  expectAccepted,
  expectRpcReply,
  HOST_NOT_FOUND_PAGE,
  type Host,
  hostVariants,
  notification,
  request,
  rpcResult,
  startHost,
  startWorldHost,
} from './helpers/hosts.js';

const { version: PACKAGE_VERSION } = JSON.parse(
  await readFile(new URL('../package.json', import.meta.url), 'utf8'),
);
const CLIENT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'tester', version: '1.0' },
};
const CANCELLED = { content: [{ type: 'text', text: 'the call was cancelled' }], isError: true };

describe.each(hostVariants)('methods on $name', (variant) => {
  let pkg: typeof Package;
  let world: World;
  let host: Host;

  beforeAll(async () => {
    ({ pkg, world, host } = await startWorldHost(variant, createWorld));
  });
  afterAll(async () => {
    await host?.close();
  });

  describe('initialize', () => {
    it('answers the version, the tools capability, serverInfo and the server description as instructions', async () => {
      const reply = await host.post(world.codes.textStats, request(1, 'initialize', CLIENT));
      expectRpcReply(
        reply,
        200,
        rpcResult(1, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'express-app-mcp', version: PACKAGE_VERSION },
          instructions: DESCRIPTIONS.textStats,
        }),
      );
    });

    it('a server without a description has no instructions', async () => {
      const reply = await host.post(world.codes.faqBot, request(1, 'initialize', CLIENT));
      expectRpcReply(
        reply,
        200,
        rpcResult(1, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'express-app-mcp', version: PACKAGE_VERSION },
        }),
      );
    });

    it('serverInfo comes from the serverInfo option when given', async () => {
      const custom = await startHost(
        variant,
        pkg,
        world.options({ serverInfo: { name: 'acme-apps', version: '7.1.0' } }),
      );
      try {
        const reply = await custom.post(world.codes.textStats, request('i', 'initialize', CLIENT));
        expectRpcReply(
          reply,
          200,
          rpcResult('i', {
            protocolVersion: '2025-11-25',
            capabilities: { tools: { listChanged: false } },
            serverInfo: { name: 'acme-apps', version: '7.1.0' },
            instructions: DESCRIPTIONS.textStats,
          }),
        );
      } finally {
        await custom.close();
      }
    });
  });

  it('ping answers an empty result', async () => {
    expectRpcReply(await host.post(world.codes.textStats, request('p', 'ping')), 200, rpcResult('p', {}));
  });

  describe('tools/list', () => {
    const slowTool = {
      name: 'Slow',
      description: 'Takes its time',
      inputSchema: { type: 'object', properties: {}, required: [] },
    };

    it('lists exactly one tool and no nextCursor', async () => {
      expectRpcReply(
        await host.post(world.codes.slow, request(1, 'tools/list')),
        200,
        rpcResult(1, { tools: [slowTool] }),
      );
    });

    it('accepts a cursor and ignores it', async () => {
      const reply = await host.post(world.codes.slow, request(2, 'tools/list', { cursor: 'page-2' }));
      expectRpcReply(reply, 200, rpcResult(2, { tools: [slowTool] }));
    });
  });

  describe('notifications/cancelled', () => {
    const call = (id: string | number, headers = {}) =>
      host.post(world.codes.slow, request(id, 'tools/call', { name: 'Slow', arguments: {} }), headers);
    const cancel = (requestId: string | number, code = world.codes.slow) =>
      host.post(code, notification('notifications/cancelled', { requestId, reason: 'the user gave up' }));

    it("aborts the in-flight call's signal; the call answers that it was cancelled", async () => {
      const reply = call('long-1');
      const { run } = await world.nextSlowRun();
      expect(run.signal.aborted).toBe(false);
      expectAccepted(await cancel('long-1'));
      expect(run.signal.aborted).toBe(true);
      expectRpcReply(await reply, 200, rpcResult('long-1', CANCELLED));
    });

    it('a numeric id is cancelled by the same number, 0 included', async () => {
      const reply = call(0);
      const { run } = await world.nextSlowRun();
      expectAccepted(await cancel(0));
      expect(run.signal.aborted).toBe(true);
      expectRpcReply(await reply, 200, rpcResult(0, CANCELLED));
    });

    it('a cancel for another id, an id of another type, or another server aborts nothing', async () => {
      const reply = call(1);
      const slow = await world.nextSlowRun();
      expectAccepted(await cancel(2));
      expectAccepted(await cancel('1'));
      expectAccepted(await cancel(1, world.codes.textStats));
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
      (await world.nextSlowRun()).release('all done');
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

  describe('mounting', () => {
    it('a router mounted under a path answers there, and only there', async () => {
      const mounted = await startHost(variant, pkg, world.options(), { mountPath: '/api/v1' });
      try {
        expectRpcReply(await mounted.post(world.codes.textStats, request(1, 'ping')), 200, rpcResult(1, {}));
        const root = await mounted.send({
          path: `/mcp/server/${world.codes.textStats}/mcp`,
          body: request(1, 'ping'),
        });
        expect({ status: root.status, text: root.text }).toEqual({ status: 404, text: HOST_NOT_FOUND_PAGE });
      } finally {
        await mounted.close();
      }
    });

    it('other paths of the host are left to the host', async () => {
      const reply = await host.send({ path: '/mcp/server', body: request(1, 'ping') });
      expect({ status: reply.status, text: reply.text }).toEqual({ status: 404, text: HOST_NOT_FOUND_PAGE });
    });
  });
});
