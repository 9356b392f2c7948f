/**
 * The protocol core driven directly, without HTTP: the protocol rules of docs/http-contract.md are
 * tested this way once, while the transport, the guards and the real clients run on real Express
 * hosts (`hosts.ts`). The core is the one `mcpServer` builds from the same options.
 *
 * A reply comes back in the shape a host reply has (status, content type, text, parsed body), made
 * as the Express layer writes it, so the suites assert the same whole replies either way.
 */
import type { Request } from 'express';
import { beforeAll, beforeEach, expect } from 'vitest';
import { createMcpCore } from '../../src/endpoint/mcp-core.js';
import { type McpServerOptions, parseMcpServerOptions } from '../../src/endpoint/mcp-server-options.js';
import { memoryServerStore } from '../../src/index.js';
import type { EndpointReply } from '../../src/protocol/reply.js';
import type { ServerStore } from '../../src/store/types.js';
import type { World } from './apps.js';
import type { Headers, Reply } from './hosts.js';

export interface CoreClient {
  /** Hands the core one parsed payload for a server code, with the MCP headers among `headers`. */
  post(serverCode: string, payload: unknown, headers?: Headers): Promise<Reply>;
  /** The raw reply of the core, for tests of its shape. */
  handle(serverCode: string, payload: unknown, headers?: Headers): Promise<EndpointReply>;
}

/** What `runApp` receives as `run.request` and `resolveServer` as `req` when there is no HTTP. */
export const NO_HTTP_REQUEST = Object.freeze({ note: 'driven without HTTP' }) as unknown as Request;

/** A core over `options`, as `mcpServer(options)` would serve it. */
export function coreClient(options: McpServerOptions): CoreClient {
  const config = parseMcpServerOptions(options);
  const { core } = createMcpCore(config);
  const handle: CoreClient['handle'] = (serverCode, payload, headers = {}) => {
    const header = (name: string) => headers[name] ?? headers[name.toLowerCase()];
    return core({
      payload,
      headers: {
        protocolVersion: header('mcp-protocol-version'),
        method: header('mcp-method'),
        name: header('mcp-name'),
      },
      resolve: (checkServer) => config.resolveServer(serverCode, NO_HTTP_REQUEST, checkServer),
      onClosed: () => () => {}, // no connection to close
      request: NO_HTTP_REQUEST,
    });
  };
  return {
    handle,
    post: async (serverCode, payload, headers) => asReply(await handle(serverCode, payload, headers)),
  };
}

/** The set-up most protocol suites share: a world of servers in a memory store, and its core. */
export async function startWorldCore<W extends Pick<World, 'options'>>(
  createWorld: (store: ServerStore) => Promise<W>,
  overrides?: Partial<McpServerOptions>,
): Promise<{ world: W; core: CoreClient }> {
  const world = await createWorld(memoryServerStore());
  return { world, core: coreClient(world.options(overrides)) };
}

/**
 * `startWorldCore` for the `describe` it is called in: the world and its core made once before its
 * tests, the world's runs and reports cleared before each. Read `world` and `core` from the tests.
 */
export function worldOnCore<W extends Pick<World, 'options'> & { runs: unknown[]; reports: unknown[] }>(
  createWorld: (store: ServerStore) => Promise<W>,
  overrides?: Partial<McpServerOptions>,
): { world: W; core: CoreClient } {
  const suite = {} as { world: W; core: CoreClient };
  beforeAll(async () => {
    Object.assign(suite, await startWorldCore(createWorld, overrides));
  });
  beforeEach(() => {
    suite.world.runs.length = 0;
    suite.world.reports.length = 0;
  });
  return suite;
}

/**
 * A core reply as the Express layer writes it. A body the core serialized already must be exactly
 * what serializing it gives, since that text is what goes on the wire.
 */
export function asReply(reply: EndpointReply): Reply {
  switch (reply.kind) {
    case 'accepted':
      return { status: 202, headers: {}, text: '', json: undefined };
    case 'json': {
      if (reply.json !== undefined) expect(reply.json).toBe(JSON.stringify(reply.body));
      const text = reply.json ?? JSON.stringify(reply.body);
      return {
        status: reply.status,
        headers: { 'content-type': 'application/json' },
        text,
        json: JSON.parse(text),
      };
    }
    case 'stream':
      throw new Error('a streamed reply: read reply.messages from handle() instead');
    case 'later':
      throw new Error('a reply known later comes only to a client that accepts an event stream');
  }
}
