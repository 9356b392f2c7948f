/**
 * Caller keys end to end (docs/keys.md): a `"key"` server refuses every request without a valid
 * key of its own (401, before its app is loaded, in both eras and on every method of the route),
 * and lets a key's caller in as that key: `run.caller`, one end user per key, its own rate limit.
 * Keys are made, rotated and revoked through the console; no secret is ever stored or logged.
 */

import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databases, describeEach } from '../helpers/databases.js';
import { hostVariants, loadPackage, type Reply, startHost } from '../helpers/hosts.js';
import { dumpAllTables, type KeyWorld, startKeyWorld } from '../helpers/key-world.js';
import { envelope, standardHeaders } from '../helpers/modern.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const NO_KEY = 'Bearer realm="mcp"';
const BAD_KEY = 'Bearer realm="mcp", error="invalid_token"';
const NO_KEY_MESSAGE = 'Unauthorized: this MCP server requires a caller key (Authorization: Bearer <key>)';
const BAD_KEY_MESSAGE =
  'Unauthorized: the caller key is not valid for this server (unknown, revoked or expired)';
const V = { 'mcp-protocol-version': '2025-11-25' };
const SECRET = /^mcpk_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/;

const legacyCall = (id = 2) => request(id, 'tools/call', { name: 'Notes', arguments: { text: 'hi' } });
const modernCall = (id = 3) =>
  request(id, 'tools/call', { name: 'Notes', arguments: { text: 'hi' }, _meta: envelope() });
const bearer = (secret?: string) => (secret === undefined ? {} : { authorization: `Bearer ${secret}` });

/** A whole 401 of a `"key"` server. */
function expectRefused(reply: Reply, id: number | null, bad: boolean): void {
  expectRpcReply(reply, 401, rpcError(id, -32600, bad ? BAD_KEY_MESSAGE : NO_KEY_MESSAGE));
  expect(reply.headers['www-authenticate']).toBe(bad ? BAD_KEY : NO_KEY);
}

describeEach(databases)('caller keys on $name', (database) => {
  let world: KeyWorld;
  beforeAll(async () => {
    world = await startKeyWorld({ database, mcp: { rateLimit: { requests: 12, windowMs: 60_000 } } });
  });
  afterAll(async () => {
    await world?.close();
  });

  const code = () => world.servers.notes.serverCode;
  const legacy = (secret?: string, id = 2) =>
    world.host.post(code(), legacyCall(id), { ...V, ...bearer(secret) });
  const modern = (secret?: string, id = 3) =>
    world.host.post(code(), modernCall(id), { ...standardHeaders('tools/call', 'Notes'), ...bearer(secret) });
  const other = (method: 'GET' | 'DELETE', secret?: string) =>
    world.host.send({ method, path: world.host.path(code()), headers: bearer(secret) });

  /** Every way a refused caller knocks: both eras, POST, GET and DELETE; the app is never loaded. */
  async function expectEveryMethodRefused(secret: string | undefined, bad: boolean) {
    const loads = world.loads.count;
    const runs = world.runs.length;
    expectRefused(await legacy(secret), 2, bad);
    expectRefused(await modern(secret), 3, bad);
    const init = request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    expectRefused(await world.host.post(code(), init, bearer(secret)), 1, bad);
    expectRefused(await other('GET', secret), null, bad);
    expectRefused(await other('DELETE', secret), null, bad);
    expect(world.loads.count).toBe(loads);
    expect(world.runs.length).toBe(runs);
  }

  it('no key: 401 with Bearer realm="mcp", in both eras, on POST, GET and DELETE, before the app is loaded', async () => {
    await expectEveryMethodRefused(undefined, false);
  });

  it('an unknown key, a malformed one, or the server code as the key: 401 invalid_token', async () => {
    await expectEveryMethodRefused('mcpk_abcdefgh_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', true);
    await expectEveryMethodRefused('not-a-key', true);
    await expectEveryMethodRefused(code(), true);
  });

  it('a key of another server is refused', async () => {
    const { secret } = await world.makeKey(world.servers.open.id, { name: 'stray' });
    await expectEveryMethodRefused(secret, true);
  });

  it('a valid key calls the tool in both eras as itself: run.caller, and an end user named by the key', async () => {
    const { id, secret } = await world.makeKey(world.servers.notes.id, { name: 'alice' });
    expect(secret).toMatch(SECRET);
    const caller = { kind: 'key', id, name: 'alice' };
    const outputs = { text: 'hi', caller, endUser: 'alice' };
    expectRpcReply(
      await legacy(secret),
      200,
      rpcResult(2, {
        content: [{ type: 'text', text: JSON.stringify(outputs) }],
        structuredContent: outputs,
        isError: false,
      }),
    );
    const modernReply = await modern(secret);
    expect(modernReply.status).toBe(200);
    expect(modernReply.json).toMatchObject({
      id: 3,
      result: { resultType: 'complete', structuredContent: outputs, isError: false },
    });
    expect(world.runs.at(-1)?.caller).toEqual(caller);
    // A second key is a second end user.
    const bob = await world.makeKey(world.servers.notes.id, { name: 'bob' });
    await legacy(bob.secret);
    const [first, second] = [world.runs.at(-2), world.runs.at(-1)];
    expect(second?.endUser.name).toBe('bob');
    expect(second?.endUser.id).not.toBe(first?.endUser.id);
    // A GET with a valid key is what it is without keys: 405.
    const get = await other('GET', secret);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('the official clients connect with the key in a header: v1 with requestInit, v2 at 2026-07-28', async () => {
    const { secret } = await world.makeKey(world.servers.notes.id, { name: 'clients' });
    const url = new URL(`${world.host.url}${world.host.path(code())}`);
    const headers = { Authorization: `Bearer ${secret}` };
    const v1 = new Client({ name: 'keys-v1', version: '1.0.0' });
    await v1.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      expect((await v1.listTools()).tools.map((tool) => tool.name)).toEqual(['Notes']);
      const result = await v1.callTool({ name: 'Notes', arguments: { text: 'v1' } });
      expect(result.structuredContent).toMatchObject({
        text: 'v1',
        caller: { kind: 'key', name: 'clients' },
      });
    } finally {
      await v1.close();
    }
    const v2 = new ModernClient(
      { name: 'keys-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await v2.connect(new ModernTransport(url, { requestInit: { headers } }));
    try {
      expect(v2.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const result = await v2.callTool({ name: 'Notes', arguments: { text: 'v2' } });
      expect(result.structuredContent).toMatchObject({
        text: 'v2',
        caller: { kind: 'key', name: 'clients' },
      });
    } finally {
      await v2.close();
    }
    // Without the header, the v1 client is refused at connect.
    const refused = new Client({ name: 'keys-v1', version: '1.0.0' });
    await expect(refused.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(
      /requires a caller key/,
    );
  });

  it('a revoked key is refused at once on this instance; the others keep working', async () => {
    const doomed = await world.makeKey(world.servers.notes.id, { name: 'doomed' });
    const kept = await world.makeKey(world.servers.notes.id, { name: 'kept' });
    expect((await legacy(doomed.secret)).status).toBe(200);
    const revoked = await world.console('admin').revoke(world.servers.notes.id, doomed.id);
    expect({ status: revoked.status, body: revoked.text }).toEqual({ status: 204, body: '' });
    await expectEveryMethodRefused(doomed.secret, true);
    expect((await legacy(kept.secret)).status).toBe(200);
  });

  it('a rotation with a grace: the old secret works until grace_until, then 401; the new one at once', async () => {
    const { id, secret: old } = await world.makeKey(world.servers.notes.id, { name: 'rotating' });
    expect((await legacy(old)).status).toBe(200);
    const rotated = await world.console('admin').rotate(world.servers.notes.id, id, { grace_seconds: 2 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.key as string;
    expect(fresh).toMatch(SECRET);
    expect(fresh).not.toBe(old);
    // The prefix names the key across rotations.
    expect(fresh.slice(0, 14)).toBe(old.slice(0, 14));
    expect(rotated.body.grace_until).toBeGreaterThan(Date.now() / 1000);
    expect((await legacy(fresh)).status).toBe(200);
    expect((await legacy(old)).status).toBe(200);
    // `grace_until` is in whole seconds, rounded down: the grace ends within the second after it.
    await new Promise((resolve) =>
      setTimeout(resolve, ((rotated.body.grace_until as number) + 1) * 1000 - Date.now() + 50),
    );
    expectRefused(await legacy(old), 2, true);
    expect((await legacy(fresh)).status).toBe(200);
    // Without a grace the old secret stops at once.
    const again = await world.console('admin').rotate(world.servers.notes.id, id);
    expect(again.body.grace_until).toBeNull();
    expectRefused(await legacy(fresh), 2, true);
    expect((await legacy(again.body.key as string)).status).toBe(200);
  });

  it('an expired key is refused', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const { secret } = await world.makeKey(world.servers.notes.id, { name: 'brief', expires_at: expiresAt });
    expect((await legacy(secret)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt * 1000 - Date.now() + 50));
    await expectEveryMethodRefused(secret, true);
  });

  it('the header route (the code as the bearer) sends a "key" server\'s caller to the path URL: 403', async () => {
    const loads = world.loads.count;
    const reply = await world.host.send({
      path: '/mcp/server/mcp',
      body: legacyCall(),
      headers: { ...V, authorization: `Bearer ${code()}` },
    });
    expectRpcReply(
      reply,
      403,
      rpcError(
        2,
        -32600,
        'Forbidden: this MCP server requires a caller key; connect to its path URL (/mcp/server/<server code>/mcp) with Authorization: Bearer <key> instead of sending the server code as a bearer token',
      ),
    );
    expect(reply.headers['www-authenticate']).toBeUndefined();
    expect(world.loads.count).toBe(loads);
  });

  it('rateLimit counts per key: one key over its limit does not hold another back', async () => {
    const busy = await world.makeKey(world.servers.notes.id, { name: 'busy' });
    const calm = await world.makeKey(world.servers.notes.id, { name: 'calm' });
    for (let i = 0; i < 12; i++) expect((await legacy(busy.secret)).status).toBe(200);
    const over = await legacy(busy.secret);
    expectRpcReply(over, 429, rpcError(2, -32000, 'Too many requests'));
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await legacy(calm.secret)).status).toBe(200);
  });

  it('last_used_at is written off the request path, at most once a minute', async () => {
    const { id, secret } = await world.makeKey(world.servers.notes.id, { name: 'used' });
    const listed = async () =>
      (
        (await world.console('admin').list(world.servers.notes.id)).body.data as {
          id: string;
          last_used_at: number | null;
        }[]
      ).find((key) => key.id === id);
    expect((await listed())?.last_used_at).toBeNull();
    const before = Math.floor(Date.now() / 1000);
    await legacy(secret);
    await vi.waitFor(async () => expect((await listed())?.last_used_at).toBeGreaterThanOrEqual(before), {
      timeout: 3000,
    });
    const first = (await listed())?.last_used_at;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await legacy(secret);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await listed())?.last_used_at).toBe(first);
  });

  it('no secret is in any row of any table, nor in onError reports or console output, after making, using and rotating keys', async () => {
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      vi
        .spyOn(console, level)
        .mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' '))),
    );
    try {
      const secrets: string[] = [];
      const { id, secret } = await world.makeKey(world.servers.notes.id, { name: 'audited' });
      secrets.push(secret);
      await legacy(secret);
      await modern(secret);
      const rotated = await world.console('admin').rotate(world.servers.notes.id, id, { grace_seconds: 60 });
      secrets.push(rotated.body.key as string);
      await legacy(rotated.body.key as string);
      await legacy(`${secret}x`);
      await world.store.keys?.flush();
      const dump = await dumpAllTables(world.knex);
      expect(dump).toContain(id);
      const reports = JSON.stringify(
        world.errors.map(({ error, context }) => [String(error), (error as Error)?.stack, context]),
      );
      for (const each of secrets) {
        expect(dump).not.toContain(each);
        // Nor its random part alone.
        expect(dump).not.toContain(each.slice(14));
        expect(reports).not.toContain(each.slice(14));
        expect(logged.join('\n')).not.toContain(each.slice(14));
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('a "key" server behind a resolveServer of the host\'s own, without the store', () => {
  it('answers 500 and tells onError to pass the store: the keys cannot be checked', async () => {
    const sqlite = databases.find((kind) => kind.name === 'sqlite')!;
    const world = await startKeyWorld({ database: sqlite });
    try {
      const resolver = world.store.resolver(() => ({
        id: 'notes',
        name: 'Notes',
        mode: 'workflow',
        inputForm: [],
      }));
      // A plain function of the host's: not the one the store made, so it carries no keys.
      const own: typeof resolver = (code, req, options) => resolver(code, req, options);
      const errors: unknown[] = [];
      const host = await startHost(hostVariants[0]!, await loadPackage(5), {
        resolveServer: own,
        runApp: () => ({ outputs: {} }),
        onError: (error) => errors.push(error),
      });
      try {
        const { secret } = await world.makeKey(world.servers.notes.id);
        const reply = await host.post(world.servers.notes.serverCode, legacyCall(), {
          ...V,
          ...bearer(secret),
        });
        expectRpcReply(reply, 500, rpcError(2, -32603, 'Internal error'));
        expect(String(errors[0])).toContain(
          'has no store with caller keys: pass resolveServer: store.resolver(loadApp) or the store option',
        );
        expect(String(errors[0])).not.toContain(secret);
      } finally {
        await host.close();
      }
    } finally {
      await world.close();
    }
  });
});

describe('the console API of keys', () => {
  let world: KeyWorld;
  const sqlite = databases.find((kind) => kind.name === 'sqlite')!;
  beforeAll(async () => {
    world = await startKeyWorld({ database: sqlite });
  });
  afterAll(async () => {
    await world?.close();
  });
  const KEY_FIELDS = [
    'created_at',
    'daily_call_quota',
    'expires_at',
    'grace_until',
    'id',
    'last_used_at',
    'name',
    'prefix',
    'revoked_at',
  ];

  it('makes a key: 201 with the secret once; lists show every field but the secret', async () => {
    const server = world.servers.notes.id;
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const made = await world
      .console('admin')
      .create(server, { name: 'ci', expires_at: expiresAt, daily_call_quota: 500 });
    expect(made.status).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    expect(made.body).toEqual({
      id: expect.any(String),
      name: 'ci',
      prefix: expect.stringMatching(/^[a-z0-9]{8}$/),
      created_at: expect.any(Number),
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
      grace_until: null,
      daily_call_quota: 500,
      key: expect.stringMatching(SECRET),
    });
    expect(made.body.key.slice(5, 13)).toBe(made.body.prefix);
    const listed = await world.console('viewer').list(server);
    expect(listed.status).toBe(200);
    const [shown] = (listed.body.data as Record<string, unknown>[]).filter((key) => key.id === made.body.id);
    expect(Object.keys(shown ?? {}).sort()).toEqual(KEY_FIELDS);
    const { key: _secret, ...rest } = made.body;
    expect(shown).toEqual(rest);
    expect(listed.text).not.toContain(made.body.key);
  });

  it('validates bodies: 400 with a message per field', async () => {
    const server = world.servers.notes.id;
    const bad = await world
      .console('admin')
      .create(server, { name: '', expires_at: 12, daily_call_quota: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_request',
      fields: {
        name: 'must not be empty',
        expires_at: 'must be in the future',
        daily_call_quota: 'must be at least 1',
      },
    });
    const missing = await world.console('admin').create(server, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.fields).toEqual({ name: 'is required' });
    const { id } = await world.makeKey(server, { name: 'graceful' });
    const long = await world.console('admin').rotate(server, id, { grace_seconds: 7 * 24 * 3600 + 1 });
    expect(long.status).toBe(400);
    expect(long.body.error.fields).toEqual({ grace_seconds: 'must be at most 604800 (7 days)' });
    const week = await world.console('admin').rotate(server, id, { grace_seconds: 7 * 24 * 3600 });
    expect(week.status).toBe(200);
  });

  it("is tenant-scoped: another tenant's server is 404; reads need access, writes canEdit", async () => {
    const server = world.servers.notes.id;
    const { id } = await world.makeKey(server, { name: 'scoped' });
    for (const reply of [
      await world.console('other').list(server),
      await world.console('other').create(server, { name: 'x' }),
      await world.console('other').rotate(server, id),
      await world.console('other').revoke(server, id),
      await world.console('admin').list('no-such-server'),
    ]) {
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'MCP server not found' } },
      });
    }
    expect((await world.console('viewer').create(server, { name: 'x' })).status).toBe(403);
    expect((await world.console('viewer').revoke(server, id)).status).toBe(403);
    expect((await world.console().list(server)).status).toBe(401);
    const unknown = await world.console('admin').revoke(server, 'no-such-key');
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'key not found' } },
    });
    // A revoked key cannot be rotated back to life.
    await world.console('admin').revoke(server, id);
    expect((await world.console('admin').rotate(server, id)).status).toBe(404);
  });

  it('rotating and revoking from another site are refused (403), and the key stays as it was', async () => {
    const server = world.servers.notes.id;
    const { id } = await world.makeKey(server, { name: 'cross' });
    for (const reply of [
      await world.console('admin').revoke(server, id).set('Sec-Fetch-Site', 'cross-site'),
      await world.console('admin').rotate(server, id).set('Origin', 'https://evil.example'),
    ]) {
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('forbidden');
    }
    const listed = (await world.console('admin').list(server)).body.data as {
      id: string;
      revoked_at: unknown;
      grace_until: unknown;
    }[];
    expect(listed.find((key) => key.id === id)).toMatchObject({ revoked_at: null, grace_until: null });
  });

  it('auth_mode "key" is set through PUT and shown in the server JSON; an unknown mode is 400', async () => {
    const put = (authMode: string) =>
      supertest(world.app)
        .put('/console/api/apps/open/server')
        .set('Authorization', 'Bearer admin')
        .send({ id: world.servers.open.id, parameters: {}, auth_mode: authMode });
    const keyed = await put('key');
    expect({ status: keyed.status, mode: keyed.body.auth_mode }).toEqual({ status: 200, mode: 'key' });
    const bad = await put('keys');
    expect({ status: bad.status, fields: bad.body.error.fields }).toEqual({
      status: 400,
      fields: { auth_mode: 'must be code, oauth or key' },
    });
    const back = await put('code');
    expect(back.body.auth_mode).toBe('code');
  });
});

const rpcResult = (id: number, result: unknown) => ({ jsonrpc: '2.0', id, result });
