/**
 * Toolsets in a farm on PostgreSQL (docs/toolsets.md): an edit made through one instance's store,
 * and a change of a member's own server, reach another instance's `tools/list` through the change
 * trigger's NOTIFY within 2 s, although that instance caches codes and apps for far longer.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type HostApp, type KnexServerStore, knexServerStore, migrate } from '../../src/index.js';
import { coreClient } from '../helpers/core.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { request } from '../helpers/rpc.js';
import { untilListening } from '../helpers/stores.js';

const postgres = databases.filter((kind) => kind.name === 'postgres');
const TENANT = 'tenant-farm-toolsets';
/** Far longer than the 2 s a change may take: only NOTIFY can explain it being seen. */
const LONG_TTL_MS = 60_000;
const APPS = new Map<string, HostApp>(
  ['Alpha', 'Beta', 'Gamma'].map((name) => [
    name.toLowerCase(),
    { id: name.toLowerCase(), name, mode: 'workflow', inputForm: [] },
  ]),
);

describeEach(postgres)('toolsets in a farm on $name', (kind) => {
  let db: TestDatabase;
  let writer: KnexServerStore;
  let reader: KnexServerStore;
  let readerCore: ReturnType<typeof coreClient>;
  const tablePrefix = `toolsets_${randomBytes(3).toString('hex')}_`;

  beforeAll(async () => {
    db = await kind.create();
    await migrate(db.connect(), { tablePrefix });
    writer = knexServerStore(db.connect(), { tablePrefix, cacheTtlMs: LONG_TTL_MS });
    reader = knexServerStore(db.connect(), { tablePrefix, cacheTtlMs: LONG_TTL_MS });
    readerCore = coreClient({
      resolveServer: reader.resolver((appId) => APPS.get(appId) ?? null, { appCacheTtlMs: LONG_TTL_MS }),
      runApp: () => ({ outputs: {} }),
      store: reader,
    });
  });
  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await db?.destroy();
  });

  /** The other instance's `tools/list` of a code. */
  const listed = async (code: string) => {
    const reply = await readerCore.post(code, request(1, 'tools/list'), {
      'mcp-protocol-version': '2025-06-18',
    });
    return (reply.json as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
  };
  const within2s = { timeout: 2000, interval: 20 };

  it('an edit of a toolset, and a member app’s server deactivated or published, are seen by another instance within 2 s', async () => {
    const servers = new Map<string, string>();
    for (const id of ['alpha', 'beta']) {
      const server = await writer.createServer({
        tenantId: TENANT,
        appId: id,
        name: id,
        description: '',
        parameters: {},
      });
      servers.set(id, server.id);
    }
    const toolset = await writer.toolsets!.create({
      tenantId: TENANT,
      name: 'Greek',
      description: '',
      allPublished: false,
      members: [{ appId: 'alpha' }],
    });
    const everything = await writer.toolsets!.create({
      tenantId: TENANT,
      name: 'Everything',
      description: '',
      allPublished: true,
      members: [],
    });
    expect(await listed(toolset.serverCode)).toEqual(['Alpha']);
    expect(await listed(everything.serverCode)).toEqual(['Alpha', 'Beta']);
    await untilListening(reader);
    // Read again once listening: the caches now hold what only a NOTIFY can drop.
    expect(await listed(toolset.serverCode)).toEqual(['Alpha']);
    expect(await listed(everything.serverCode)).toEqual(['Alpha', 'Beta']);

    const edited = Date.now();
    await writer.toolsets!.update(toolset.id, {
      members: [{ appId: 'beta', toolName: 'b' }, { appId: 'alpha' }],
    });
    await expect.poll(() => listed(toolset.serverCode), within2s).toEqual(['b', 'Alpha']);
    expect(Date.now() - edited).toBeLessThan(2000);

    await writer.deactivateServer(servers.get('beta') as string);
    await expect.poll(() => listed(toolset.serverCode), within2s).toEqual(['Alpha']);
    await expect.poll(() => listed(everything.serverCode), within2s).toEqual(['Alpha']);

    await writer.createServer({
      tenantId: TENANT,
      appId: 'gamma',
      name: 'gamma',
      description: '',
      parameters: {},
    });
    await expect.poll(() => listed(everything.serverCode), within2s).toEqual(['Alpha', 'Gamma']);
    expect(await listed(toolset.serverCode)).toEqual(['Alpha']);
  });
});
