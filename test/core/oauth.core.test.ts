/**
 * Per-user access in the framework-free core, without HTTP: the check runs with the resolver,
 * before the app is loaded and within the lookup's deadline, or after a hand-written resolver
 * that skips it; what `verifyToken` returns is checked; an `"oauth"` server without the `auth`
 * option fails closed.
 */
import { describe, expect, it } from 'vitest';
import type { ParsedAuthOptions } from '../../src/auth/auth-options.js';
import { authenticateCaller } from '../../src/auth/authenticate.js';
import { bearerTokenOf } from '../../src/auth/bearer.js';
import { AccessRefused } from '../../src/errors/access-refused.js';
import type { ErrorContext } from '../../src/index.js';
import type { EndpointRequest } from '../../src/protocol/request.js';
import { createProtocolCore } from '../../src/protocol/router.js';
import { DEFAULT_MAX_INLINE_RESULT_BYTES } from '../../src/tool/call.js';
import { DEFAULT_MAX_DATA_URL_BYTES } from '../../src/tool/file-input.js';
import type { AppRun, AuthInfo, HostApp, ResolvedServer, ServerRecord } from '../../src/types/index.js';

const APP: HostApp = { id: 'notes', name: 'Notes', mode: 'workflow', inputForm: [] };
const server = (authMode?: 'code' | 'oauth'): ServerRecord => ({
  id: 'server-1',
  tenantId: 'acme',
  appId: APP.id,
  name: 'Notes',
  description: '',
  serverCode: 'AbCdEfGhIjKlMnOp',
  status: 'active',
  parameters: {},
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...(authMode ? { authMode } : {}),
});
const urls = {
  resource: 'https://mcp.example.com/mcp/server/AbCdEfGhIjKlMnOp/mcp',
  metadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp/server/AbCdEfGhIjKlMnOp/mcp',
};
const ALICE: AuthInfo = { subject: 'alice', tenantId: 'acme', scopes: ['mcp:tools'] };
const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Notes', arguments: {} } };

function core(resolveTimeoutMs = 0) {
  const runs: AppRun[] = [];
  const reports: { error: unknown; context: ErrorContext }[] = [];
  const handle = createProtocolCore({
    runApp: (run) => {
      runs.push(run);
      return { outputs: {} };
    },
    serverInfo: { name: 'test', version: '1.0.0' },
    callTimeoutMs: 0,
    maxDataUrlBytes: DEFAULT_MAX_DATA_URL_BYTES,
    maxInlineResultBytes: DEFAULT_MAX_INLINE_RESULT_BYTES,
    resolveTimeoutMs,
    report: (error, context) => reports.push({ error, context }),
  });
  const ask = (request: Partial<EndpointRequest>) =>
    handle({
      payload: CALL,
      headers: {},
      onClosed: () => () => {},
      request: null,
      resolve: async () => null,
      ...request,
    });
  return { ask, runs, reports };
}

describe('per-user access in the core', () => {
  it('the store-style resolver runs the check before it loads the app, and a refusal stops it there', async () => {
    const { ask } = core();
    let loaded = 0;
    const resolve: EndpointRequest['resolve'] = async (options) => {
      await options?.checkServer?.(server('oauth'));
      loaded++;
      return { server: server('oauth'), app: APP };
    };
    const refusal = new AccessRefused('unauthorized', 'Unauthorized: no', 'Bearer resource_metadata="x"');
    const reply = await ask({ resolve, authenticate: async () => Promise.reject(refusal) });
    expect(reply).toEqual({
      kind: 'json',
      status: 401,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Unauthorized: no' } },
      headers: { 'WWW-Authenticate': 'Bearer resource_metadata="x"' },
    });
    expect(loaded).toBe(0);
  });

  it('a hand-written resolver that skips the check gets it afterwards, and the run gets the caller', async () => {
    const { ask, runs } = core();
    const resolved: ResolvedServer = {
      server: server('oauth'),
      app: APP,
      endUser: async (name, subject) => ({ id: `eu-${subject}`, name }),
    };
    const refused = await ask({
      resolve: async () => resolved,
      authenticate: async () => Promise.reject(new AccessRefused('forbidden', 'Forbidden: no')),
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: { message: 'Forbidden: no' } },
      headers: {},
    });
    const served = await ask({ resolve: async () => resolved, authenticate: async () => ALICE });
    expect(served).toMatchObject({ status: 200, body: { result: { isError: false } } });
    expect(runs[0]?.auth).toEqual(ALICE);
    expect(runs[0]?.caller).toEqual({ kind: 'oauth', subject: 'alice' });
    expect(runs[0]?.endUser).toEqual({ id: 'eu-alice', name: 'alice' });
  });

  it('a "code" server never calls authenticate and its run has no auth', async () => {
    const { ask, runs } = core();
    let asked = 0;
    const reply = await ask({
      resolve: async () => ({ server: server(), app: APP }),
      authenticate: async () => {
        asked++;
        return ALICE;
      },
    });
    expect(reply).toMatchObject({ status: 200 });
    expect(asked).toBe(0);
    expect('auth' in (runs[0] as object)).toBe(false);
    expect(runs[0]?.caller).toEqual({ kind: 'code' });
  });

  it('an "oauth" server on a route without per-user access fails closed: 500, told to onError', async () => {
    const { ask, reports, runs } = core();
    const reply = await ask({ resolve: async () => ({ server: server('oauth'), app: APP }) });
    expect(reply).toEqual({
      kind: 'json',
      status: 500,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
    });
    expect(runs).toHaveLength(0);
    expect(reports).toEqual([
      {
        error: new Error(
          'server server-1 is in "oauth" mode, but mcpServer() has no auth option to check its callers',
        ),
        context: { phase: 'authenticate', serverId: 'server-1' },
      },
    ]);
  });

  it('a resolver failing after the check passed is a resolve failure', async () => {
    const { ask, reports } = core();
    const failure = new Error('loadApp failed');
    const reply = await ask({
      resolve: async (options) => {
        await options?.checkServer?.(server('oauth'));
        throw failure;
      },
      authenticate: async () => ALICE,
    });
    expect(reply).toMatchObject({ status: 500 });
    expect(reports).toEqual([{ error: failure, context: { phase: 'resolve' } }]);
  });
});

describe('authenticateCaller', () => {
  const options = (overrides: Partial<ParsedAuthOptions> = {}): ParsedAuthOptions => ({
    verifyToken: async () => ALICE,
    authorizationServers: ['https://idp.example.com'],
    requiredScopes: [],
    ...overrides,
  });
  const attempt = (token: string | undefined, parsed: ParsedAuthOptions) =>
    authenticateCaller(server('oauth'), { token, urls, request: null }, parsed);

  it('without required scopes, the no-token challenge is exactly the metadata URL', async () => {
    const error = await attempt(undefined, options()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AccessRefused);
    expect((error as AccessRefused).headers).toEqual({
      'WWW-Authenticate': `Bearer resource_metadata="${urls.metadata}"`,
    });
  });

  it('hands verifyToken the token and the canonical resource, and returns what it says', async () => {
    const seen: unknown[] = [];
    const info = await attempt(
      'tok',
      options({
        verifyToken: async (token, context) => {
          seen.push(token, context);
          return { subject: 'bob', scopes: [] };
        },
      }),
    );
    expect(info).toEqual({ subject: 'bob', scopes: [] });
    expect(seen).toEqual(['tok', { resource: urls.resource, req: null }]);
  });

  it('a token verifyToken accepts whose expiresAt has passed: 401 invalid_token "expired"', async () => {
    const expired = options({
      verifyToken: async () => ({ ...ALICE, expiresAt: Math.floor(Date.now() / 1000) - 1 }),
    });
    const error = (await attempt('tok', expired).catch((caught: unknown) => caught)) as AccessRefused;
    expect([error.status, error.message, error.headers]).toEqual([
      401,
      'Unauthorized: The access token has expired',
      {
        'WWW-Authenticate': `Bearer error="invalid_token", error_description="The access token has expired", resource_metadata="${urls.metadata}"`,
      },
    ]);
  });

  it('an AuthInfo without a subject is the host’s bug, not a refusal', async () => {
    await expect(
      attempt('tok', options({ verifyToken: async () => ({ scopes: [] }) as never })),
    ).rejects.toThrow(
      'mcpServer: auth.verifyToken must return { subject: string, scopes: string[], … } or null',
    );
  });

  it('a token without a tenant is not checked against the server’s tenant', async () => {
    expect(
      await attempt('tok', options({ verifyToken: async () => ({ subject: 'x', scopes: [] }) })),
    ).toMatchObject({
      subject: 'x',
    });
  });
});

describe('bearerTokenOf', () => {
  it('reads RFC 6750 bearer tokens, any case of the scheme, and nothing else', () => {
    expect(bearerTokenOf('Bearer abc.DEF-_~+/=')).toBe('abc.DEF-_~+/=');
    expect(bearerTokenOf('bearer  abc ')).toBe('abc');
    for (const header of [undefined, '', 'Basic abc', 'Bearer', 'Bearer a b', 'Bearer "abc"']) {
      expect(bearerTokenOf(header)).toBeUndefined();
    }
  });

  it('within resolveTimeoutMs a refusal is still a refusal', async () => {
    const { ask } = core(200);
    const refusal = new AccessRefused('unauthorized', 'Unauthorized: no', 'Bearer resource_metadata="x"');
    const reply = await ask({
      resolve: async (options) => {
        await options?.checkServer?.(server('oauth'));
        return { server: server('oauth'), app: APP };
      },
      authenticate: async () => Promise.reject(refusal),
    });
    expect(reply).toEqual({
      kind: 'json',
      status: 401,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Unauthorized: no' } },
      headers: { 'WWW-Authenticate': 'Bearer resource_metadata="x"' },
    });
  });

  /** As the store does with `staleIfErrorMs`: the database hangs, the copy at hand is served at the deadline. */
  const staleAtDeadline: EndpointRequest['resolve'] = (options) =>
    new Promise<ResolvedServer>((resolve, reject) => {
      options?.signal?.addEventListener('abort', () => {
        (options.checkServer?.(server('oauth')) ?? Promise.resolve()).then(
          () => resolve({ server: server('oauth'), app: APP }),
          reject,
        );
      });
    });

  it('a stale copy answered at the deadline is served on an "oauth" server too: its token check gets time of its own', async () => {
    const { ask, runs, reports } = core(100);
    const reply = await ask({
      // As the store does with `staleIfErrorMs`: the database hangs, the copy at hand is served.
      resolve: staleAtDeadline,
      // A JWT check answers after a turn or two of the event loop (keys, WebCrypto).
      authenticate: () => new Promise<AuthInfo>((resolve) => setTimeout(() => resolve(ALICE), 20)),
    });
    expect(reply).toMatchObject({ kind: 'json', status: 200 });
    expect(runs.map((run) => run.auth)).toEqual([ALICE]);
    expect(reports).toEqual([]);
  });

  it('a token check begun at the deadline still has a deadline of its own: 503 when it does not answer', async () => {
    const { ask, reports } = core(100);
    const started = Date.now();
    const reply = await ask({
      resolve: staleAtDeadline,
      authenticate: () => new Promise<AuthInfo>(() => {}),
    });
    expect(reply).toMatchObject({ kind: 'json', status: 503, headers: { 'Retry-After': '5' } });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(reports).toEqual([
      { error: expect.objectContaining({ name: 'ResolveTimeout' }), context: { phase: 'resolve' } },
    ]);
  });

  it('a token check still running at the lookup deadline answers 503 with Retry-After, and loads nothing', async () => {
    const { ask, reports, runs } = core(100);
    let loaded = 0;
    const reply = await ask({
      resolve: async (options) => {
        await options?.checkServer?.(server('oauth'));
        loaded++;
        return { server: server('oauth'), app: APP };
      },
      authenticate: () => new Promise<AuthInfo>(() => {}),
    });
    expect(reply).toEqual({
      kind: 'json',
      status: 503,
      body: {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'MCP server temporarily unavailable: try again later' },
      },
      headers: { 'Retry-After': '5' },
    });
    expect(loaded).toBe(0);
    expect(runs).toHaveLength(0);
    expect(reports).toEqual([
      { error: expect.objectContaining({ name: 'ResolveTimeout' }), context: { phase: 'resolve' } },
    ]);
  });
});
