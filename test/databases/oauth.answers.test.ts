/**
 * The answers of an `"oauth"` server to callers it refuses (MCP 2025-06-18 "Authorization",
 * RFC 6750 §3, RFC 9728 §5.1), in both protocol eras, all before the app is loaded; its protected
 * resource metadata; and tokens never appearing in replies, logs or the error hook.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MCP_SCOPE } from '../helpers/authorization-server.js';
import { databases } from '../helpers/databases.js';
import type { Headers, Reply } from '../helpers/hosts.js';
import { envelope, standardHeaders } from '../helpers/modern.js';
import { type OAuthWorld, signIn, startOAuthWorld, TENANT } from '../helpers/oauth-world.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const LIST = request(7, 'tools/list', {});
const modernList = (id: number | string) => request(id, 'tools/list', { _meta: envelope() });
const MODERN_HEADERS = standardHeaders('tools/list');

describe('the answers of an "oauth" server', () => {
  let world: OAuthWorld;
  let alice: string;
  /** Every token used here, and every reply: none may show a token. */
  const tokens: string[] = [];
  const replies: Reply[] = [];
  const logged: unknown[][] = [];

  beforeAll(async () => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args);
      });
    }
    world = await startOAuthWorld({
      database: databases[0] as (typeof databases)[0],
      // A check that fails, and quotes the token as careless code does: in an Error, in a thrown
      // string, and in the errors of an AggregateError (every introspection endpoint failed).
      verifyToken: (jwt) => async (token, context) => {
        if (token.startsWith('unverifiable')) throw new Error(`introspection failed for ${token}`);
        if (token.startsWith('thrown-string')) return Promise.reject(`introspection failed for ${token}`);
        if (token.startsWith('aggregate')) {
          throw new AggregateError(
            [new Error(`refused ${token}`, { cause: `no session for ${token}` }), `timed out on ${token}`],
            `every introspection endpoint failed for ${token}`,
          );
        }
        return jwt(token, context);
      },
    });
    alice = await signIn(world, world.codes.notes, 'alice');
    tokens.push(alice);
  });
  afterAll(async () => {
    await world?.close();
    vi.restoreAllMocks();
  });

  const metadataUrl = (code: string) =>
    `${world.host.url}/.well-known/oauth-protected-resource/mcp/server/${code}/mcp`;

  async function post(code: string, payload: unknown, headers: Headers = {}): Promise<Reply> {
    const reply = await world.host.post(code, payload, headers);
    replies.push(reply);
    return reply;
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /** A refusal: the status, the challenge, and a JSON-RPC error that echoes the id. */
  function expectRefusal(
    reply: Reply,
    status: 401 | 403,
    challenge: string | undefined,
    message: string,
    id: unknown = 7,
  ) {
    expect({
      status: reply.status,
      type: reply.headers['content-type'],
      challenge: reply.headers['www-authenticate'],
      body: reply.json,
    }).toEqual({
      status,
      type: 'application/json',
      challenge,
      body: { jsonrpc: '2.0', id, error: { code: -32600, message } },
    });
  }

  const NO_TOKEN = 'Unauthorized: this MCP server requires an OAuth access token (Authorization: Bearer)';
  const INVALID = 'Unauthorized: The access token is not valid for this server';
  const invalidChallenge = (code: string) =>
    `Bearer error="invalid_token", error_description="The access token is not valid for this server", scope="${MCP_SCOPE}", resource_metadata="${metadataUrl(code)}"`;

  /** A token refused as invalid for the notes server. */
  const expectInvalidToken = async (token: string) =>
    expectRefusal(
      await post(world.codes.notes, LIST, bearer(token)),
      401,
      invalidChallenge(world.codes.notes),
      INVALID,
    );

  /** A token signed by the authorization server for the notes server, with these claims changed. */
  async function minted(claims: Record<string, unknown>): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const token = await world.as.sign({
      sub: 'alice',
      aud: world.url(world.codes.notes),
      scope: MCP_SCOPE,
      client_id: 'some-client',
      tenant_id: TENANT,
      iat: now,
      exp: now + 300,
      ...claims,
    });
    tokens.push(token);
    return token;
  }

  it('no token: 401 with the metadata URL and the scope to ask for, and the app is not loaded', async () => {
    const loads = world.loads.count;
    const reply = await post(world.codes.notes, LIST);
    expectRefusal(
      reply,
      401,
      `Bearer scope="${MCP_SCOPE}", resource_metadata="${metadataUrl(world.codes.notes)}"`,
      NO_TOKEN,
    );
    expect(world.loads.count).toBe(loads);
  });

  it('a token minted for another server (another audience): 401 invalid_token', async () => {
    const ledger = await signIn(world, world.codes.ledger, 'alice');
    tokens.push(ledger);
    await expectInvalidToken(ledger);
    // The same token is good where it belongs.
    const reply = await post(world.codes.ledger, LIST, bearer(ledger));
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ id: 7, result: { tools: [{ name: 'Ledger' }] } });
  });

  it('an expired token: 401 invalid_token', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectInvalidToken(await minted({ iat: now - 600, exp: now - 300 }));
  });

  it('a token that is no JWT at all: 401 invalid_token', async () => {
    await expectInvalidToken('not-a-jwt');
  });

  it('a token of a user of another tenant: 403, without a challenge (signing in again would not help)', async () => {
    const globex = await signIn(world, world.codes.notes, 'mallory', 'globex');
    tokens.push(globex);
    const loads = world.loads.count;
    expectRefusal(
      await post(world.codes.notes, LIST, bearer(globex)),
      403,
      undefined,
      'Forbidden: the access token belongs to another tenant',
    );
    expect(world.loads.count).toBe(loads);
  });

  it('a token without the required scope: 403 insufficient_scope naming the scope', async () => {
    const narrow = await minted({ scope: 'profile' });
    expectRefusal(
      await post(world.codes.notes, LIST, bearer(narrow)),
      403,
      `Bearer error="insufficient_scope", error_description="The access token lacks the scope ${MCP_SCOPE}", scope="${MCP_SCOPE}", resource_metadata="${metadataUrl(world.codes.notes)}"`,
      `Forbidden: The access token lacks the scope ${MCP_SCOPE}`,
    );
  });

  it('the 2026-07-28 era answers the same, and serves a signed-in caller', async () => {
    expectRefusal(
      await post(world.codes.notes, modernList('m1'), MODERN_HEADERS),
      401,
      `Bearer scope="${MCP_SCOPE}", resource_metadata="${metadataUrl(world.codes.notes)}"`,
      NO_TOKEN,
      'm1',
    );
    const reply = await post(world.codes.notes, modernList('m2'), { ...MODERN_HEADERS, ...bearer(alice) });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      id: 'm2',
      result: { resultType: 'complete', tools: [{ name: 'Notes' }] },
    });
  });

  it('notifications and batches need the token too', async () => {
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    expectRefusal(await post(world.codes.notes, cancelled), 401, expect.any(String) as never, NO_TOKEN, null);
    expect((await post(world.codes.notes, cancelled, bearer(alice))).status).toBe(202);
    expectRefusal(await post(world.codes.notes, [LIST]), 401, expect.any(String) as never, NO_TOKEN, null);
  });

  it('the caller is checked before the server status and the app: an inactive server or a gone app answers 401 first', async () => {
    const gone = await world.store.createServer({
      tenantId: TENANT,
      appId: 'gone',
      name: 'Gone',
      description: '',
      parameters: {},
      authMode: 'oauth',
    });
    const goneToken = await signIn(world, gone.serverCode, 'alice');
    tokens.push(goneToken);
    expectRefusal(await post(gone.serverCode, LIST), 401, expect.any(String) as never, NO_TOKEN);
    expect((await post(gone.serverCode, LIST, bearer(goneToken))).json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'app not found' },
    });
    await world.store.updateServer(gone.id, { status: 'inactive' });
    expectRefusal(await post(gone.serverCode, LIST), 401, expect.any(String) as never, NO_TOKEN);
    expect((await post(gone.serverCode, LIST, bearer(goneToken))).json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'MCP server is not active' },
    });
  });

  it('a "code" server ignores an Authorization header', async () => {
    const reply = await post(world.codes.open, LIST, bearer('whatever-this-is'));
    expect(reply.status).toBe(200);
    expect(reply.headers['www-authenticate']).toBeUndefined();
    expect(reply.json).toMatchObject({ id: 7, result: { tools: [{ name: 'Open_Notes' }] } });
  });

  it('serves the protected resource metadata of an "oauth" server at its path-suffixed URL', async () => {
    const response = await fetch(metadataUrl(world.codes.notes));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      resource: world.url(world.codes.notes),
      authorization_servers: [world.as.issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'Acme apps',
    });
  });

  it('has no metadata for a "code" server or an unknown code', async () => {
    for (const code of [world.codes.open, 'Unknown000000000']) {
      const response = await fetch(metadataUrl(code));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: 'not_found',
        error_description: 'No protected resource here',
      });
    }
  });

  it('a token check that fails is an opaque 500; onError gets the cause with the token scrubbed', async () => {
    const token = `unverifiable-${'x'.repeat(24)}`;
    tokens.push(token);
    const errors = world.errors.length;
    const reply = await post(world.codes.notes, LIST, bearer(token));
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } });
    const reported = world.errors.slice(errors);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.context).toEqual({ phase: 'authenticate', serverId: expect.any(String) });
    expect((reported[0]?.error as Error | undefined)?.message).toBe('introspection failed for [token]');
  });

  it('a token check that throws a string is an opaque 500; onError gets the string with the token scrubbed', async () => {
    const token = `thrown-string-${'x'.repeat(24)}`;
    tokens.push(token);
    const errors = world.errors.length;
    const reply = await post(world.codes.notes, LIST, bearer(token));
    expectRpcReply(reply, 500, rpcError(7, -32603, 'Internal error'));
    expect(reply.headers['www-authenticate']).toBeUndefined();
    expect(world.errors.slice(errors)).toEqual([
      {
        error: 'introspection failed for [token]',
        context: { phase: 'authenticate', serverId: expect.any(String) },
      },
    ]);
  });

  it('a token check that throws an AggregateError: onError gets it with the token scrubbed from every error it holds', async () => {
    const token = `aggregate-${'x'.repeat(24)}`;
    tokens.push(token);
    const errors = world.errors.length;
    const reply = await post(world.codes.notes, LIST, bearer(token));
    expectRpcReply(reply, 500, rpcError(7, -32603, 'Internal error'));
    expect(reply.headers['www-authenticate']).toBeUndefined();
    const reported = world.errors.slice(errors);
    expect(reported).toEqual([
      { error: expect.any(AggregateError), context: { phase: 'authenticate', serverId: expect.any(String) } },
    ]);
    const error = reported[0]?.error as AggregateError;
    const [first, second] = error.errors as [Error, string];
    expect({
      message: error.message,
      errors: [{ message: first.message, cause: first.cause }, second],
    }).toEqual({
      message: 'every introspection endpoint failed for [token]',
      errors: [{ message: 'refused [token]', cause: 'no session for [token]' }, 'timed out on [token]'],
    });
    expect(`${error.stack} ${first.stack}`).not.toContain(token);
  });

  it('no token ever shows in a reply, a log line or what onError receives', () => {
    expect(tokens.length).toBeGreaterThanOrEqual(6);
    const seen = [
      ...replies.map((reply) => `${JSON.stringify(reply.headers)}\n${reply.text}`),
      ...logged.map((args) =>
        args.map((arg) => (arg instanceof Error ? `${arg.stack}` : JSON.stringify(arg))).join(' '),
      ),
      ...world.errors.map(
        ({ error, context }) =>
          `${(error as Error)?.stack} ${JSON.stringify(error)} ${JSON.stringify(context)}`,
      ),
    ].join('\n');
    expect(seen.length).toBeGreaterThan(0);
    for (const token of tokens) expect(seen).not.toContain(token);
  });
});
