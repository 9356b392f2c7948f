/**
 * Per-user access end to end: the official MCP TypeScript client with an `authProvider` meets an
 * `"oauth"` server, is refused with 401, finds the authorization server through the protected
 * resource metadata, registers itself, signs a user in with PKCE, gets a token for the server's
 * URL and retries; the app then runs as that user. `"code"` servers are untouched.
 */

import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorizedError,
} from '@modelcontextprotocol/client';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MCP_SCOPE } from '../helpers/authorization-server.js';
import { databases, describeEach } from '../helpers/databases.js';
import { HeadlessOAuthClient, type OAuthWorld, startOAuthWorld, TENANT } from '../helpers/oauth-world.js';

describeEach(databases)('the official client signs in to an "oauth" server, on $name', (database) => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({ database });
  });
  afterAll(async () => {
    await world?.close();
  });

  /** Connects as `subject`, going through the whole sign-in flow the first time. */
  async function connectAs(subject: string, tenantId = TENANT) {
    world.as.signInAs(subject, tenantId);
    const provider = new HeadlessOAuthClient((url, redirectUri) => world.as.authorize(url, redirectUri));
    const url = new URL(world.url(world.codes.notes));
    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    const refused = first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    await expect(refused).rejects.toBeInstanceOf(UnauthorizedError);
    const signingIn = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await signingIn.finishAuth(provider.authorizationCode as string);
    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return { client, provider };
  }

  it('discovers, registers, signs in with PKCE, gets a token for the server, then lists and calls as the user', async () => {
    const loadsBefore = world.loads.count;
    const { client, provider } = await connectAs('alice');
    try {
      // Dynamic client registration at the authorization server the metadata names.
      expect(provider.registered?.client_id).toEqual(expect.any(String));
      const [authorization] = provider.authorizationUrls;
      expect(authorization?.origin).toBe(world.as.issuer);
      expect(Object.fromEntries(authorization?.searchParams ?? [])).toMatchObject({
        response_type: 'code',
        client_id: provider.registered?.client_id,
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        redirect_uri: provider.redirectUrl,
        scope: MCP_SCOPE,
        // RFC 8707: the token is asked for this server's URL, exactly as its metadata names it.
        resource: world.url(world.codes.notes),
      });
      expect(provider.saved).toMatchObject({
        token_type: expect.stringMatching(/^bearer$/i),
        access_token: expect.any(String),
      });
      // The refused first attempt never loaded the app; the signed-in requests did.
      expect(world.loads.count).toBeGreaterThan(loadsBefore);

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['Notes']);
      const result = await client.callTool({ name: 'Notes', arguments: { text: 'hello' } });
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"text":"hello","subject":"alice","endUser":"alice"}' }],
        structuredContent: { text: 'hello', subject: 'alice', endUser: 'alice' },
        isError: false,
      });
      const run = world.runs.at(-1);
      expect(run?.auth).toEqual({
        subject: 'alice',
        tenantId: TENANT,
        scopes: [MCP_SCOPE],
        clientId: provider.registered?.client_id,
        expiresAt: expect.any(Number),
        extra: expect.objectContaining({
          sub: 'alice',
          iss: world.as.issuer,
          aud: world.url(world.codes.notes),
          tenant_id: TENANT,
        }),
      });
      expect(JSON.stringify(run?.auth)).not.toContain(provider.saved?.access_token);
    } finally {
      await client.close();
    }
  });

  it('gives each signed-in user an end user of their own, named by the subject, and keeps it', async () => {
    const bob = await connectAs('bob');
    const carol = await connectAs('carol');
    try {
      await bob.client.callTool({ name: 'Notes', arguments: { text: 'one' } });
      const bobFirst = world.runs.at(-1)?.endUser;
      await carol.client.callTool({ name: 'Notes', arguments: { text: 'two' } });
      const carolFirst = world.runs.at(-1)?.endUser;
      await bob.client.callTool({ name: 'Notes', arguments: { text: 'three' } });
      const bobAgain = world.runs.at(-1)?.endUser;

      expect(bobFirst).toEqual({ id: expect.any(String), name: 'bob' });
      expect(carolFirst).toEqual({ id: expect.any(String), name: 'carol' });
      expect(carolFirst?.id).not.toBe(bobFirst?.id);
      expect(bobAgain).toEqual(bobFirst);
      const rows = await world.knex('mcp_end_users').whereIn('subject', ['bob', 'carol']).orderBy('subject');
      expect(
        rows.map((row: { subject: string; name: string; type: string }) => [row.subject, row.name, row.type]),
      ).toEqual([
        ['bob', 'bob', 'mcp'],
        ['carol', 'carol', 'mcp'],
      ]);
    } finally {
      await bob.client.close();
      await carol.client.close();
    }
  });

  it('the 2026-07-28 client (official v2) signs in the same way and calls as the user', async () => {
    world.as.signInAs('dora', TENANT);
    const provider = new HeadlessOAuthClient((url, redirectUri) => world.as.authorize(url, redirectUri));
    const url = new URL(world.url(world.codes.notes));
    const options = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
    const refused = new ModernClient({ name: 'modern-oauth', version: '1.0.0' }, options);
    await expect(
      refused.connect(new ModernTransport(url, { authProvider: provider })),
    ).rejects.toBeInstanceOf(ModernUnauthorizedError);
    // RFC 9207: the v2 client checks the callback's `iss` before it redeems the code.
    await new ModernTransport(url, { authProvider: provider }).finishAuth(
      provider.callback as URLSearchParams,
    );
    const client = new ModernClient({ name: 'modern-oauth', version: '1.0.0' }, options);
    await client.connect(new ModernTransport(url, { authProvider: provider }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const result = await client.callTool({ name: 'Notes', arguments: { text: 'modern' } });
      expect(result.structuredContent).toEqual({ text: 'modern', subject: 'dora', endUser: 'dora' });
      expect(world.runs.at(-1)).toMatchObject({
        protocolVersion: '2026-07-28',
        auth: { subject: 'dora', tenantId: TENANT },
      });
    } finally {
      await client.close();
    }
  });

  it('a "code" server works for a client without any authProvider, exactly as before', async () => {
    const client = new Client({ name: 'code-client', version: '2.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(world.url(world.codes.open))));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['Open_Notes']);
      const result = await client.callTool({ name: 'Open_Notes', arguments: { text: 'hi' } });
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"text":"hi","subject":null,"endUser":"code-client@2.0.0"}' }],
        structuredContent: { text: 'hi', subject: null, endUser: 'code-client@2.0.0' },
        isError: false,
      });
      expect(world.runs.at(-1)?.auth).toBeUndefined();
      expect('auth' in (world.runs.at(-1) ?? {})).toBe(false);
    } finally {
      await client.close();
    }
  });
});
