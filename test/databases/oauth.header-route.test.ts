/**
 * One bearer per request (README, "Per-user access with OAuth"; docs/http-contract.md, row 12e): on
 * `POST /mcp/server/mcp` the bearer is the server code, so an `"oauth"` server reached that way is
 * refused with a 403 JSON-RPC error that sends the client to the server's path URL, where its
 * OAuth token goes. Never a 500, with or without the `auth` option, and before the app is loaded.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../../src/index.js';
import { databases } from '../helpers/databases.js';
import { type Headers, type Host, hostVariants, type Reply, startHost } from '../helpers/hosts.js';
import { envelope, standardHeaders } from '../helpers/modern.js';
import { type OAuthWorld, signIn, startOAuthWorld } from '../helpers/oauth-world.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const BEARER_PATH = '/mcp/server/mcp';
const LIST = request(7, 'tools/list', {});
const MODERN_LIST = request('m1', 'tools/list', { _meta: envelope() });
const MODERN_HEADERS = standardHeaders('tools/list');
const USE_THE_PATH_URL =
  'Forbidden: this MCP server requires a signed-in user; connect to its path URL (/mcp/server/<server code>/mcp) with an OAuth access token instead of sending the server code as a bearer token';

const viaHeader = (host: Host, code: string, body: unknown, headers: Headers = {}): Promise<Reply> =>
  host.send({ path: BEARER_PATH, body, headers: { ...headers, authorization: `Bearer ${code}` } });

/** The whole refusal: 403, no challenge, the JSON-RPC error with the request's id. */
function expectSentToThePathUrl(reply: Reply, id: string | number | null): void {
  expectRpcReply(reply, 403, rpcError(id, -32600, USE_THE_PATH_URL));
  expect(reply.headers['www-authenticate']).toBeUndefined();
}

describe('an "oauth" server reached with its code as the bearer on POST /mcp/server/mcp', () => {
  let world: OAuthWorld;
  let alice: string;

  beforeAll(async () => {
    world = await startOAuthWorld({ database: databases[0] as (typeof databases)[0] });
    alice = await signIn(world, world.codes.notes, 'alice');
  });
  afterAll(() => world?.close());

  it('answers 403 telling the client to use the path URL with its OAuth token; the app is not loaded, nothing is reported', async () => {
    const before = { loads: world.loads.count, runs: world.runs.length, errors: world.errors.length };
    expectSentToThePathUrl(await viaHeader(world.host, world.codes.notes, LIST), 7);
    expect({ loads: world.loads.count, runs: world.runs.length, errors: world.errors.length }).toEqual(
      before,
    );
  });

  it('answers the same in the 2026-07-28 era, to notifications and to batches', async () => {
    expectSentToThePathUrl(await viaHeader(world.host, world.codes.notes, MODERN_LIST, MODERN_HEADERS), 'm1');
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    expectSentToThePathUrl(await viaHeader(world.host, world.codes.notes, cancelled), null);
    expectSentToThePathUrl(await viaHeader(world.host, world.codes.notes, [LIST]), null);
    expect(world.errors).toEqual([]);
  });

  it('the two bearers stay apart: a user’s token on that route is no server code (404, never echoed), and serves on the path URL', async () => {
    const onHeaderRoute = await viaHeader(world.host, alice, LIST);
    expectRpcReply(onHeaderRoute, 404, rpcError(7, -32600, 'MCP server not found'));
    expect(onHeaderRoute.text).not.toContain(alice);
    const onPath = await world.host.post(world.codes.notes, LIST, { authorization: `Bearer ${alice}` });
    expect(onPath.status).toBe(200);
    expect(onPath.json).toMatchObject({ id: 7, result: { tools: [{ name: 'Notes' }] } });
  });

  it('a "code" server on the same router is served on that route as before', async () => {
    const reply = await viaHeader(world.host, world.codes.open, LIST);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ id: 7, result: { tools: [{ name: 'Open_Notes' }] } });
  });

  it('the official client is told to use the path URL', async () => {
    const client = new Client({ name: 'header-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(BEARER_PATH, world.host.url), {
      requestInit: { headers: { Authorization: `Bearer ${world.codes.notes}` } },
    });
    await expect(client.connect(transport)).rejects.toThrow(
      /connect to its path URL \(\/mcp\/server\/<server code>\/mcp\) with an OAuth access token/,
    );
  });
});

describe('an "oauth" server on POST /mcp/server/mcp of a router without the auth option', () => {
  const APP: pkg.HostApp = { id: 'notes', name: 'Notes', mode: 'workflow', inputForm: [] };
  const errors: pkg.ErrorContext[] = [];
  let host: Host;
  let code: string;
  let loads = 0;

  beforeAll(async () => {
    const store = pkg.memoryServerStore();
    const server = await store.createServer({
      tenantId: 'acme',
      appId: APP.id,
      name: APP.name,
      description: '',
      parameters: {},
      authMode: 'oauth',
    });
    code = server.serverCode;
    host = await startHost(hostVariants[0] as (typeof hostVariants)[0], pkg, {
      resolveServer: store.resolver(
        async () => {
          loads++;
          return APP;
        },
        { appCacheTtlMs: 0 },
      ),
      runApp: () => ({ outputs: {} }),
      onError: (_error, context) => errors.push(context),
    });
  });
  afterAll(() => host?.close());

  it('is the same 403, not an internal error: the route never signs anyone in', async () => {
    expectSentToThePathUrl(await viaHeader(host, code, LIST), 7);
    expect({ loads, errors }).toEqual({ loads: 0, errors: [] });
  });

  it('while its path URL fails closed as before: 500, told to onError', async () => {
    const reply = await host.post(code, LIST);
    expectRpcReply(reply, 500, rpcError(7, -32603, 'Internal error'));
    expect(errors).toEqual([{ phase: 'authenticate', serverId: expect.any(String) }]);
    expect(loads).toBe(0);
  });
});
