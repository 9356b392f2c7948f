/**
 * Caller keys in a farm (docs/keys.md): two instances, each with a store on its own connection to
 * one PostgreSQL, stand for two processes. A key revoked or rotated through one is refused by the
 * other within a second, though it had cached the key for a TTL far longer; SQLite has no NOTIFY,
 * and relies on that TTL.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { PostgresFarm } from '../../src/store/farm/postgres-farm.js';
import { knexServerStore } from '../../src/store/index.js';
import type { KnexServerStore } from '../../src/store/types.js';
import type { HostApp, ServerRecord } from '../../src/types/index.js';
import { createMigrated, databases, describeEach, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import { request } from '../helpers/rpc.js';

const postgres = databases.filter((kind) => kind.name === 'postgres');
/** Long enough that only NOTIFY can explain a refusal within a second. */
const TTL_MS = 30_000;
const APP: HostApp = { id: 'notes', name: 'Notes', mode: 'workflow', inputForm: [] };

describeEach(postgres)('caller keys across a farm on $name', (kind) => {
  let db: TestDatabase;
  let stores: KnexServerStore[];
  let hosts: Host[];
  let server: ServerRecord;

  beforeAll(async () => {
    ({ db } = await createMigrated(kind));
    stores = [
      knexServerStore(db.connect(), { cacheTtlMs: TTL_MS }),
      knexServerStore(db.connect(), { cacheTtlMs: TTL_MS }),
    ];
    const pkg = await loadPackage(5);
    hosts = await Promise.all(
      stores.map((store) =>
        startHost(hostVariants[0]!, pkg, {
          resolveServer: store.resolver(() => APP),
          store,
          runApp: () => ({ outputs: {} }),
        }),
      ),
    );
    server = await stores[0]!.createServer({
      tenantId: 't',
      appId: APP.id,
      name: APP.name,
      description: '',
      parameters: {},
      authMode: 'key',
    });
  });
  afterAll(async () => {
    for (const host of hosts ?? []) await host.close();
    for (const store of stores ?? []) await store.close();
    await db?.destroy();
  });

  const call = (host: Host, secret: string) =>
    host.post(server.serverCode, request(1, 'tools/call', { name: 'Notes', arguments: {} }), {
      authorization: `Bearer ${secret}`,
    });

  /** Makes a key on the first instance and has the second one cache it (and listen). */
  async function keyKnownToBoth(name: string) {
    const issued = await stores[0]!.keys!.create(server.id, { name });
    for (const host of hosts) expect((await call(host, issued.secret)).status).toBe(200);
    await vi.waitFor(() => expect((stores[1]!.farm as PostgresFarm).listening).toBe(true));
    return issued;
  }

  /** How long the second instance takes to refuse `secret`, in ms. */
  async function refusedAfter(secret: string): Promise<number> {
    const began = performance.now();
    await vi.waitFor(
      async () => {
        expect((await call(hosts[1]!, secret)).status).toBe(401);
      },
      { timeout: 2000, interval: 20 },
    );
    return performance.now() - began;
  }

  it('a key revoked on one instance is refused at once there and within 1 s on the other', async () => {
    const { key, secret } = await keyKnownToBoth('revoked');
    expect(await stores[0]!.keys!.revoke(server.id, key.id)).toBe(true);
    expect((await call(hosts[0]!, secret)).status).toBe(401);
    expect(await refusedAfter(secret)).toBeLessThan(1000);
  });

  it('a key rotated without a grace on one instance: its old secret is refused within 1 s on the other', async () => {
    const { key, secret } = await keyKnownToBoth('rotated');
    const rotated = await stores[0]!.keys!.rotate(server.id, key.id, 0);
    expect((await call(hosts[0]!, secret)).status).toBe(401);
    expect(await refusedAfter(secret)).toBeLessThan(1000);
    expect((await call(hosts[1]!, rotated!.secret)).status).toBe(200);
  });
});
