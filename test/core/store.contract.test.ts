/**
 * The `ServerStore` contract, run against every store the package ships: the memory store
 * (`memory`) and the Knex store on each test database (`sqlite`, `postgres`). What only the Knex store does (migrations,
 * its cache, its rows) is in `store.knex.test.ts`; the tool annotations a server carries, in
 * `annotations.store.test.ts`.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { ServerExistsError } from '../../src/errors/package-errors.js';
import type { NewServer } from '../../src/store/index.js';
import type { HostApp, ServerRecord } from '../../src/types/index.js';
import { describeEach } from '../helpers/postgres.js';
import { publishFresh, storeFor, storeKinds } from '../helpers/stores.js';

const CODE = /^[A-Za-z0-9]{16}$/;

describeEach(storeKinds)('the store contract on $name', (kind) => {
  const opened = storeFor(kind);

  /** The server as each lookup hands it out: by id, by app, by code. */
  const lookedUp = async (server: ServerRecord) => [
    await opened.store.getServerById(server.id),
    await opened.store.getServerByApp(server.tenantId, server.appId),
    await opened.store.getServerByCode(server.serverCode),
  ];
  /** A new server for an app nobody else uses, so tests never share records. */
  const publish = (overrides: Partial<NewServer> = {}) => publishFresh(opened.store, overrides);

  describe('servers', () => {
    it('createServer publishes an active server with a fresh code, Date timestamps and its parameters', async () => {
      const server = await publish({ tenantId: 'demo', appId: `text-stats-${randomUUID()}` });
      expect(server).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'demo',
        appId: server.appId,
        name: 'Text Stats',
        description: 'Counts words',
        serverCode: expect.stringMatching(CODE),
        status: 'active',
        authMode: 'code',
        taskSupport: 'optional',
        kind: 'app',
        parameters: { text: 'The text to analyse' },
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      });
      expect(server.updatedAt.getTime()).toBe(server.createdAt.getTime());
      expect(await opened.store.getServerById(server.id)).toEqual(server);
    });

    it('getServerByApp finds the app’s server within its own tenant only', async () => {
      const server = await publish();
      expect(await opened.store.getServerByApp(server.tenantId, server.appId)).toEqual(server);
      expect(await opened.store.getServerByApp('another-tenant', server.appId)).toBeNull();
      expect(await opened.store.getServerById(randomUUID())).toBeNull();
    });

    it('a second server for the same app throws ServerExistsError and stores nothing', async () => {
      const server = await publish();
      const again = publish({ tenantId: server.tenantId, appId: server.appId });
      await expect(again).rejects.toBeInstanceOf(ServerExistsError);
      await expect(again).rejects.toMatchObject({ tenantId: server.tenantId, appId: server.appId });
      expect(await opened.store.getServerByApp(server.tenantId, server.appId)).toEqual(server);
      if (opened.rows) expect(await opened.rows.servers(server.tenantId, server.appId)).toBe(1);
      // The same app id in another tenant is another app.
      const other = await publish({ appId: server.appId });
      expect(other.appId).toBe(server.appId);
    });

    it('2000 servers get 2000 distinct codes of 16 characters drawn from [A-Za-z0-9]', async () => {
      const tenantId = `codes-${randomUUID()}`;
      const codes: string[] = [];
      for (let batch = 0; batch < 40; batch++) {
        const created = await Promise.all(
          Array.from({ length: 50 }, (_, i) => publish({ tenantId, appId: `app-${batch}-${i}` })),
        );
        codes.push(...created.map((server) => server.serverCode));
      }
      expect(codes).toHaveLength(2000);
      expect(codes.filter((code) => !CODE.test(code))).toEqual([]);
      expect(new Set(codes).size).toBe(2000);
      // 32,000 uniform draws over 62 characters: each one shows up (a missing one is ~1e-220 likely).
      expect(new Set(codes.join('')).size).toBe(62);
      if (opened.rows) expect(await opened.rows.servers(tenantId)).toBe(2000);
    });

    it('updateServer changes only the given fields and moves updatedAt', async () => {
      const server = await publish();
      const updated = await opened.store.updateServer(server.id, {
        description: 'New words',
        parameters: { a: 'b' },
      });
      expect(updated).toEqual({
        ...server,
        description: 'New words',
        parameters: { a: 'b' },
        updatedAt: expect.any(Date),
      });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(server.updatedAt.getTime());
      expect(await opened.store.getServerById(server.id)).toEqual(updated);
      const renamed = await opened.store.updateServer(server.id, { name: 'Renamed', status: 'inactive' });
      expect(renamed).toMatchObject({ name: 'Renamed', status: 'inactive', description: 'New words' });
      expect(await opened.store.updateServer(randomUUID(), { name: 'x' })).toBeNull();
    });

    it('updatedAt strictly increases on every change, even several in one millisecond', async () => {
      const server = await publish();
      let previous = server.updatedAt.getTime();
      for (let i = 0; i < 5; i++) {
        const changed =
          i % 2 ? await opened.store.rotateCode(server.id) : await opened.store.updateServer(server.id, {});
        expect(changed!.updatedAt.getTime()).toBeGreaterThan(previous);
        expect(changed!.createdAt).toEqual(server.createdAt);
        previous = changed!.updatedAt.getTime();
      }
    });

    it('rotateCode replaces the code: the old one is unknown at once, the new one resolves', async () => {
      const server = await publish();
      expect(await opened.store.getServerByCode(server.serverCode)).toEqual(server); // cached, where there is a cache
      const rotated = await opened.store.rotateCode(server.id);
      expect(rotated).toMatchObject({ id: server.id, serverCode: expect.stringMatching(CODE) });
      expect(rotated!.serverCode).not.toBe(server.serverCode);
      expect(await opened.store.getServerByCode(server.serverCode)).toBeNull();
      expect(await opened.store.getServerByCode(rotated!.serverCode)).toEqual(rotated);
      expect(await opened.store.rotateCode(randomUUID())).toBeNull();
    });

    it('deactivateServer marks the server inactive, seen at once through its code', async () => {
      const server = await publish();
      expect((await opened.store.getServerByCode(server.serverCode))?.status).toBe('active');
      const inactive = await opened.store.deactivateServer(server.id);
      expect(inactive).toMatchObject({ id: server.id, status: 'inactive', serverCode: server.serverCode });
      expect((await opened.store.getServerByCode(server.serverCode))?.status).toBe('inactive');
      expect(await opened.store.deactivateServer(randomUUID())).toBeNull();
    });

    it('deleteServer removes the server and its end user; the code is unknown at once', async () => {
      const server = await publish();
      const endUser = await opened.store.getOrCreateEndUser(server, 'client@1.0');
      expect(await opened.store.getServerByCode(server.serverCode)).not.toBeNull();
      expect(await opened.store.deleteServer(server.id)).toBe(true);
      expect(await opened.store.getServerById(server.id)).toBeNull();
      expect(await opened.store.getServerByCode(server.serverCode)).toBeNull();
      if (opened.rows) expect(await opened.rows.endUsers(server.id)).toBe(0);
      expect(await opened.store.deleteServer(server.id)).toBe(false);
      // The app may be published again, with an end user of its own.
      const again = await publish({ tenantId: server.tenantId, appId: server.appId });
      expect(again.id).not.toBe(server.id);
      expect((await opened.store.getOrCreateEndUser(again, 'client@1.0')).id).not.toBe(endUser.id);
    });
  });

  describe('records handed out are copies', () => {
    it('changing a record’s fields changes neither the store nor its cache', async () => {
      const server = await publish();
      const first = await opened.store.getServerByCode(server.serverCode);
      first!.parameters.text = 'tampered';
      first!.status = 'inactive';
      expect(await opened.store.getServerByCode(server.serverCode)).toEqual(server);
    });

    it('changing a returned record’s dates in place changes nothing stored', async () => {
      const server = await publish();
      const created = server.createdAt.getTime();
      // Every way a caller gets a record; each one's Dates are its own.
      const handedOut = [
        server,
        ...(await lookedUp(server)),
        await opened.store.getServerByCode(server.serverCode),
      ];
      for (const record of handedOut) {
        record!.updatedAt.setTime(0);
        record!.createdAt.setTime(0);
      }
      for (const record of await lookedUp(server)) {
        expect(record!.createdAt.getTime()).toBe(created);
        expect(record!.updatedAt.getTime()).toBe(created);
      }
      const changed = await opened.store.updateServer(server.id, { description: 'changed' });
      changed!.updatedAt.setTime(0);
      expect((await opened.store.getServerById(server.id))!.updatedAt.getTime()).toBeGreaterThan(created);
    });

    it('changing the hints given, or those of a returned record, in place changes nothing stored', async () => {
      const given = { readOnlyHint: true };
      const server = await publish({ annotations: given });
      given.readOnlyHint = false;
      const handedOut = [
        server,
        ...(await lookedUp(server)),
        await opened.store.getServerByCode(server.serverCode),
      ];
      for (const record of handedOut) record!.annotations!.readOnlyHint = false;
      for (const record of await lookedUp(server))
        expect(record!.annotations).toEqual({ readOnlyHint: true });

      const changes = { openWorldHint: false };
      const updated = await opened.store.updateServer(server.id, { annotations: changes });
      changes.openWorldHint = true;
      updated!.annotations!.openWorldHint = true;
      expect((await opened.store.getServerByCode(server.serverCode))!.annotations).toEqual({
        openWorldHint: false,
      });
    });
  });

  describe('end users', () => {
    it('the first call creates the server’s end user; later calls, on any instance, return the same one', async () => {
      const server = await publish();
      const endUser = await opened.store.getOrCreateEndUser(server, 'Claude Desktop@1.2.3');
      expect(endUser).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Claude Desktop@1.2.3' });
      expect(await opened.store.getOrCreateEndUser(server, 'another@2')).toEqual(endUser);
      expect(await opened.another().getOrCreateEndUser(server, 'third@3')).toEqual(endUser);
    });

    it('50 concurrent first calls on two instances produce exactly one end user', async () => {
      const server = await publish();
      const stores = [opened.another(), opened.another()];
      const endUsers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % 2]!.getOrCreateEndUser(server, `client-${i}@1`)),
      );
      expect(new Set(endUsers.map((endUser) => endUser.id)).size).toBe(1);
      if (opened.rows) expect(await opened.rows.endUsers(server.id)).toBe(1);
    });
  });

  describe('the resolver', () => {
    const app: HostApp = { id: 'text-stats', name: 'Text Stats', mode: 'workflow', inputForm: [] };

    it('resolves a code to its server and app, with its end user on demand', async () => {
      const server = await publish();
      const loadApp = vi.fn(async () => app);
      const resolved = await opened.store.resolver(loadApp)(server.serverCode, {});
      expect(resolved).toMatchObject({ server, app });
      expect(loadApp).toHaveBeenCalledWith(server.appId, server.tenantId);
      const endUser = await resolved!.endUser!('client@1');
      expect(endUser).toEqual(await opened.store.getOrCreateEndUser(server, 'other@2'));
      if (opened.rows) expect(await opened.rows.endUsers(server.id)).toBe(1);
    });

    it('returns null for an unknown code without loading any app', async () => {
      const loadApp = vi.fn(async () => app);
      expect(await opened.store.resolver(loadApp)('ZZZZZZZZZZZZZZZZ', {})).toBeNull();
      expect(loadApp).not.toHaveBeenCalled();
    });

    it('returns an inactive server without loading its app', async () => {
      const server = await publish();
      await opened.store.deactivateServer(server.id);
      const loadApp = vi.fn(async () => app);
      const resolved = await opened.store.resolver(loadApp)(server.serverCode, {});
      expect(resolved).toMatchObject({ server: { id: server.id, status: 'inactive' }, app: null });
      expect(loadApp).not.toHaveBeenCalled();
    });

    it('returns app null when the app is gone', async () => {
      const server = await publish();
      const resolved = await opened.store.resolver(async () => null)(server.serverCode, {});
      expect(resolved).toMatchObject({ server, app: null });
    });
  });
});
