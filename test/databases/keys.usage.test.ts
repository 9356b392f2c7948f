/**
 * Caller keys meet toolsets, usage, quotas and the audit log (docs/keys.md, docs/toolsets.md,
 * docs/usage.md): a key's `daily_call_quota` is counted farm-wide and answered 429 once spent while
 * another key goes on; every key and toolset write of the console is recorded with its target, in
 * the write's own transaction, and no record holds a secret; a toolset takes keys as a one-app
 * server does, and keeps its code hashed on a store that hashes codes.
 */
import supertest from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databases, describeEach } from '../helpers/databases.js';
import { dumpAllTables, KEY_APPS, type KeyWorld, startKeyWorld } from '../helpers/key-world.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const SPENT =
  'Daily call quota spent: this caller has made all the calls its quota allows for today (UTC); try again after midnight UTC';
const V = { 'mcp-protocol-version': '2025-11-25' };
const toolNames = (body: unknown) =>
  (body as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
const call = (id: number) => request(id, 'tools/call', { name: 'Notes', arguments: { text: 'hi' } });

describeEach(databases)('caller keys with quotas and the audit log on $name', (database) => {
  let world: KeyWorld;
  beforeAll(async () => {
    world = await startKeyWorld({ database });
  });
  afterAll(async () => {
    await world?.close();
  });

  const post = (secret: string, id: number) =>
    world.host.post(world.servers.notes.serverCode, call(id), { ...V, authorization: `Bearer ${secret}` });
  const audit = async () => {
    const reply = await supertest(world.app).get('/console/api/audit').set('Authorization', 'Bearer admin');
    expect(reply.status).toBe(200);
    return reply.body.data as { action: string; target_id: string; details: Record<string, unknown> }[];
  };

  it("a key's daily quota lets that many calls through, then 429 with Retry-After; another key goes on", async () => {
    const capped = await world.makeKey(world.servers.notes.id, { name: 'capped', daily_call_quota: 2 });
    const free = await world.makeKey(world.servers.notes.id, { name: 'free' });
    expect((await post(capped.secret, 1)).status).toBe(200);
    expect((await post(capped.secret, 2)).status).toBe(200);
    const refused = await post(capped.secret, 3);
    expectRpcReply(refused, 429, rpcError(3, -32000, SPENT));
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    for (let id = 10; id < 14; id++) expect((await post(free.secret, id)).status).toBe(200);
  });

  it('key writes are recorded with their key and server, and no record holds the secret', async () => {
    const made = await world.makeKey(world.servers.notes.id, { name: 'audited' });
    const rotated = await world
      .console('admin')
      .rotate(world.servers.notes.id, made.id, { grace_seconds: 60 });
    expect(rotated.status).toBe(200);
    expect((await world.console('admin').revoke(world.servers.notes.id, made.id)).status).toBe(204);
    const mine = (await audit()).filter((entry) => entry.target_id === made.id);
    expect(mine.map((entry) => entry.action)).toEqual(['key.revoke', 'key.rotate', 'key.create']);
    expect(mine.map((entry) => entry.details.server_id)).toEqual(Array(3).fill(world.servers.notes.id));
    expect(mine[1]?.details).toEqual({ server_id: world.servers.notes.id, grace_seconds: 60 });
    const everything = await dumpAllTables(world.knex);
    expect(everything).not.toContain(made.secret);
    expect(everything).not.toContain(rotated.body.key);
  });

  it('a toolset in "key" mode takes keys made for it: 401 without one, its tools with one, usage by key', async () => {
    const created = await supertest(world.app)
      .post('/console/api/toolsets')
      .set('Authorization', 'Bearer admin')
      .send({
        name: 'Keyed notes',
        auth_mode: 'key',
        apps: [{ app_id: KEY_APPS.notes.id }, { app_id: KEY_APPS.open.id }],
      });
    expect(created.status).toBe(201);
    expect(created.body.auth_mode).toBe('key');
    const key = await world.makeKey(created.body.id, { name: 'toolset-caller' });
    const list = (headers: Record<string, string>) =>
      world.host.post(created.body.server_code, request(40, 'tools/list'), { ...V, ...headers });
    const refused = await list({});
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="mcp"');
    const listed = await list({ authorization: `Bearer ${key.secret}` });
    expect(listed.status).toBe(200);
    expect(toolNames(listed.json)).toEqual(['Notes', 'Open_Notes']);
    const called = await world.host.post(
      created.body.server_code,
      request(41, 'tools/call', { name: 'Open_Notes', arguments: { text: 'via toolset' } }),
      { ...V, authorization: `Bearer ${key.secret}` },
    );
    expect(called.status).toBe(200);
    expect(world.runs.at(-1)?.caller).toEqual({ kind: 'key', id: key.id, name: 'toolset-caller' });
    expect(world.runs.at(-1)?.server.kind).toBe('toolset');
  });

  it('toolset writes are recorded: create, update, rotate and delete, each with the toolset', async () => {
    const admin = (test: supertest.Test) => test.set('Authorization', 'Bearer admin');
    const created = await admin(supertest(world.app).post('/console/api/toolsets')).send({
      name: 'Both notes',
      apps: [{ app_id: KEY_APPS.notes.id }, { app_id: KEY_APPS.open.id }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const updated = await admin(supertest(world.app).put(`/console/api/toolsets/${id}`)).send({
      name: 'Notes',
    });
    expect(updated.status).toBe(200);
    const rotated = await admin(supertest(world.app).post(`/console/api/toolsets/${id}/refresh`));
    expect(rotated.status).toBe(200);
    expect(rotated.body.server_code).not.toBe(created.body.server_code);
    expect((await admin(supertest(world.app).delete(`/console/api/toolsets/${id}`))).status).toBe(204);
    const mine = (await audit()).filter((entry) => entry.target_id === id);
    expect(mine.map((entry) => [entry.action, entry.details])).toEqual([
      ['toolset.delete', { name: 'Notes' }],
      ['toolset.rotate', { name: 'Notes' }],
      ['toolset.update', { name: 'Notes' }],
      [
        'toolset.create',
        {
          name: 'Both notes',
          auth_mode: 'code',
          status: 'active',
          all_published: false,
          apps: [KEY_APPS.notes.id, KEY_APPS.open.id],
        },
      ],
    ]);
    const records = JSON.stringify(await audit());
    for (const code of [created.body.server_code, rotated.body.server_code])
      expect(records).not.toContain(code);
  });
});

describeEach(databases)('a toolset on a store that keeps codes hashed, on $name', (database) => {
  let world: KeyWorld;
  beforeAll(async () => {
    world = await startKeyWorld({ database, store: { hashCodes: true } });
  });
  afterAll(async () => {
    await world?.close();
  });
  const admin = (test: supertest.Test) => test.set('Authorization', 'Bearer admin');

  it('shows its code only in the replies that make it, and serves it; no table holds it', async () => {
    const created = await admin(supertest(world.app).post('/console/api/toolsets')).send({
      name: 'Hashed notes',
      apps: [{ app_id: KEY_APPS.open.id }],
    });
    expect(created.status).toBe(201);
    const code = created.body.server_code as string;
    expect(code).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(created.body.code_hint).toBe(code.slice(0, 4));
    const read = await admin(supertest(world.app).get(`/console/api/toolsets/${created.body.id}`));
    expect(read.status).toBe(200);
    expect([read.body.server_code, read.body.url, read.body.code_hint]).toEqual([
      null,
      null,
      code.slice(0, 4),
    ]);
    const rotated = await admin(
      supertest(world.app).post(`/console/api/toolsets/${created.body.id}/refresh`),
    );
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.server_code as string;
    expect(fresh).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(fresh).not.toBe(code);
    const listed = await world.host.post(fresh, request(1, 'tools/list'), V);
    expect(listed.status).toBe(200);
    expect(toolNames(listed.json)).toEqual(['Open_Notes']);
    expect((await world.host.post(code, request(2, 'tools/list'), V)).status).toBe(404);
    const everything = await dumpAllTables(world.knex);
    expect(everything).not.toContain(code);
    expect(everything).not.toContain(fresh);
  });
});
