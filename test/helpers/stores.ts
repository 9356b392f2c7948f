/**
 * Every store the package ships, opened fresh for one suite: the memory store (`memory`) and the
 * Knex store on each test database (`sqlite`, `postgres`), so the suites that state the
 * `ServerStore` contract run the same tests on each (`describeEach(storeKinds)`).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { PostgresFarm } from '../../src/store/farm/postgres-farm.js';
import {
  knexServerStore,
  memoryServerStore,
  type NewServer,
  type ServerStore,
} from '../../src/store/index.js';
import { createMigrated, databases } from './databases.js';

export interface OpenStore {
  store: ServerStore;
  /** Another instance over the same data, as a second process would have; the memory store has one only. */
  another(): ServerStore;
  /** The rows the database holds, where there is a database to ask. */
  rows?: {
    servers(tenantId: string, appId?: string): Promise<number>;
    endUsers(serverId: string): Promise<number>;
  };
  close(): Promise<void>;
}

export interface StoreKind {
  name: string;
  /** Why this run skips the suites on this store (its database is not available). */
  skipped?: string;
  open(): Promise<OpenStore>;
}

const count = async (knex: Knex, table: string, where: Record<string, string>) => {
  const [row] = await knex(table).where(where).count({ n: '*' });
  return Number(row?.n);
};

export const storeKinds: StoreKind[] = [
  {
    name: 'memory',
    async open() {
      const store = memoryServerStore();
      return { store, another: () => store, close: async () => {} };
    },
  },
  ...databases.map(
    (kind): StoreKind => ({
      name: kind.name,
      ...(kind.skipped ? { skipped: kind.skipped } : {}),
      async open() {
        const { db, knex } = await createMigrated(kind);
        return {
          store: knexServerStore(knex),
          another: () => knexServerStore(db.connect()),
          rows: {
            servers: (tenantId, appId) =>
              count(
                knex,
                'mcp_servers',
                appId ? { tenant_id: tenantId, app_id: appId } : { tenant_id: tenantId },
              ),
            endUsers: (serverId) => count(knex, 'mcp_end_users', { server_id: serverId }),
          },
          close: () => db.destroy(),
        };
      },
    }),
  ),
];

/** A store of `kind` for the `describe` it is called in: opened before its tests, closed after them. */
export function storeFor(kind: StoreKind): OpenStore {
  const opened = {} as OpenStore;
  beforeAll(async () => {
    Object.assign(opened, await kind.open());
  });
  afterAll(async () => {
    await opened.close?.();
  });
  return opened;
}

/** A new server in `store` for an app nobody else uses, so tests never share records. */
export const publishFresh = (store: ServerStore, overrides: Partial<NewServer> = {}) =>
  store.createServer({
    tenantId: `tenant-${randomUUID()}`,
    appId: `app-${randomUUID()}`,
    name: 'Text Stats',
    description: 'Counts words',
    parameters: { text: 'The text to analyse' },
    ...overrides,
  });

/**
 * Waits until a Knex store on PostgreSQL hears the other instances (its `LISTEN` connection, opened
 * on its first lookup, is up). That connection expires whatever the store cached before it, since
 * a change may have gone unheard until then; a test that counts queries waits for it first.
 */
export async function untilListening(store: ServerStore): Promise<void> {
  const farm = store.farm as PostgresFarm | undefined;
  if (farm) await vi.waitFor(() => expect(farm.listening).toBe(true), { timeout: 5000, interval: 10 });
}
