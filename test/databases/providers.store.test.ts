/**
 * `knexToolProviderStore` on every database: providers per tenant, their URL and headers encrypted
 * at rest (AES-256-GCM) so the raw rows never hold them in plain text, a key that does not fit
 * refused with a clear error, and a table that only `migrate` creates.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  EncryptionKeyError,
  knexToolProviderStore,
  migrate,
  type RemoteTool,
  ToolProviderExistsError,
  type ToolProviderStore,
} from '../../src/index.js';
import { databases, describeEach, type TestDatabase } from '../helpers/databases.js';

const KEY = randomBytes(32);
const TABLE = 'mcp_tool_providers';
const SECRET_URL = 'https://tools.example.com/v1/mcp/Zq8ofJ2kP0sW?api_key=sk-url-9f3b2c';
const SECRET_HEADER = 'Bearer sk-live-4b1d7e0c9a';

const TOOLS: RemoteTool[] = [
  {
    name: 'search',
    title: 'Search',
    description: 'Searches the web',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    outputSchema: { type: 'object', properties: { hits: { type: 'array' } } },
  },
];

describeEach(databases)("knexToolProviderStore on '$name'", (kind) => {
  let database: TestDatabase;
  let knex: Knex;
  let store: ToolProviderStore;

  beforeAll(async () => {
    database = await kind.create();
    knex = database.connect();
    // Constructing the store creates nothing: no table before `migrate`.
    store = knexToolProviderStore(knex, { encryptionKey: KEY });
    expect(await knex.schema.hasTable(TABLE)).toBe(false);
    await migrate(knex);
  });
  afterAll(async () => {
    await database?.destroy();
  });

  const add = (overrides: Partial<Parameters<ToolProviderStore['createProvider']>[0]> = {}) =>
    store.createProvider({
      tenantId: 'tenant-a',
      name: `Search ${randomBytes(4).toString('hex')}`,
      serverUrl: SECRET_URL,
      headers: { Authorization: SECRET_HEADER, 'X-Team': 'research-team-7' },
      ...overrides,
    });

  it('creates a provider with defaults for the timeouts, and reads it back decrypted', async () => {
    const created = await add({ name: 'Web Search' });

    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'tenant-a',
      name: 'Web Search',
      serverUrl: SECRET_URL,
      headers: { Authorization: SECRET_HEADER, 'X-Team': 'research-team-7' },
      timeoutMs: 30_000,
      callTimeoutMs: 300_000,
      tools: [],
      toolsUpdatedAt: null,
      createdAt: expect.any(Date),
      updatedAt: created.createdAt,
    });
    expect(await store.getProvider('tenant-a', created.id)).toEqual(created);
    expect(await store.getProviderByName('tenant-a', 'Web Search')).toEqual(created);
  });

  it('the raw row holds neither the URL nor any header value in plain text', async () => {
    const created = await add();

    const row = await knex(TABLE).where({ id: created.id }).first();
    const raw = JSON.stringify(row);
    for (const secret of [
      SECRET_URL,
      'tools.example.com',
      'Zq8ofJ2kP0sW',
      'sk-url-9f3b2c',
      SECRET_HEADER,
      'sk-live-4b1d7e0c9a',
      'research-team-7',
    ]) {
      expect(raw).not.toContain(secret);
    }
    expect(row.encrypted_server_url).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(row.encrypted_headers).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(row.name).toBe(created.name);
  });

  it('the same URL encrypts differently in every row (a fresh IV each time)', async () => {
    const first = await add();
    const second = await add();

    const rows = await knex(TABLE).whereIn('id', [first.id, second.id]).select('encrypted_server_url');
    expect(new Set(rows.map((row) => row.encrypted_server_url)).size).toBe(2);
  });

  it('caches the tool list as plain JSON, with the time it was listed', async () => {
    const created = await add({ tools: TOOLS, timeoutMs: 5000, callTimeoutMs: 60_000 });

    expect(created.tools).toEqual(TOOLS);
    expect(created.toolsUpdatedAt).toEqual(created.createdAt);
    const row = await knex(TABLE).where({ id: created.id }).first();
    expect(JSON.parse(row.tools)).toEqual(TOOLS);
    expect({ timeout: row.timeout_ms, call: row.call_timeout_ms }).toEqual({ timeout: 5000, call: 60_000 });
  });

  it('updates what is given and keeps the rest; new tools move toolsUpdatedAt', async () => {
    const created = await add();
    await new Promise((resolve) => setTimeout(resolve, 5));

    const updated = await store.updateProvider('tenant-a', created.id, {
      serverUrl: 'https://other.example.com/mcp',
      tools: TOOLS,
    });

    expect(updated).toEqual({
      ...created,
      serverUrl: 'https://other.example.com/mcp',
      tools: TOOLS,
      toolsUpdatedAt: updated?.updatedAt,
      updatedAt: expect.any(Date),
    });
    expect(updated!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
    const renamed = await store.updateProvider('tenant-a', created.id, { name: 'Renamed', headers: {} });
    expect(renamed).toMatchObject({
      name: 'Renamed',
      headers: {},
      serverUrl: 'https://other.example.com/mcp',
    });
    expect(await store.getProvider('tenant-a', created.id)).toEqual(renamed);
  });

  it('names are unique within a tenant, on create and on rename; other tenants may reuse them', async () => {
    await add({ name: 'Unique' });
    const other = await add({ name: 'Other' });

    await expect(add({ name: 'Unique' })).rejects.toThrow(new ToolProviderExistsError('tenant-a', 'Unique'));
    await expect(store.updateProvider('tenant-a', other.id, { name: 'Unique' })).rejects.toBeInstanceOf(
      ToolProviderExistsError,
    );
    expect((await add({ tenantId: 'tenant-b', name: 'Unique' })).tenantId).toBe('tenant-b');
  });

  it("another tenant's provider is not found: not listed, read, changed or deleted", async () => {
    const created = await add({ tenantId: 'tenant-c' });

    expect(await store.getProvider('tenant-d', created.id)).toBeNull();
    expect(await store.getProviderByName('tenant-d', created.name)).toBeNull();
    expect(await store.updateProvider('tenant-d', created.id, { name: 'Stolen' })).toBeNull();
    expect(await store.deleteProvider('tenant-d', created.id)).toBe(false);
    expect(await store.listProviders('tenant-d')).toEqual([]);
    expect(await store.getProvider('tenant-c', created.id)).toEqual(created);
  });

  it("lists a tenant's providers oldest first (by creation time, to the millisecond)", async () => {
    const first = await add({ tenantId: 'tenant-e', name: 'B' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await add({ tenantId: 'tenant-e', name: 'A' });

    expect(await store.listProviders('tenant-e')).toEqual([first, second]);
  });

  it('deletes', async () => {
    const created = await add();

    expect(await store.deleteProvider('tenant-a', created.id)).toBe(true);
    expect(await store.getProvider('tenant-a', created.id)).toBeNull();
    expect(await store.deleteProvider('tenant-a', created.id)).toBe(false);
  });

  it('a key that does not fit: a clear EncryptionKeyError, on every read', async () => {
    const created = await add({ tenantId: 'tenant-f' });
    const wrong = knexToolProviderStore(knex, { encryptionKey: randomBytes(32) });

    const expected = new EncryptionKeyError(
      'the encryptionKey does not fit the stored tool providers: they were encrypted with another key (or altered)',
    );
    await expect(wrong.getProvider('tenant-f', created.id)).rejects.toThrow(expected);
    await expect(wrong.listProviders('tenant-f')).rejects.toThrow(expected);
    await expect(wrong.getProviderByName('tenant-f', created.name)).rejects.toThrow(expected);
  });

  it('the key may be given as 64 hex characters', async () => {
    const created = await add();
    const hex = knexToolProviderStore(knex, { encryptionKey: KEY.toString('hex').toUpperCase() });

    expect(await hex.getProvider('tenant-a', created.id)).toEqual(created);
  });

  it('a ciphertext moved to another row does not open there', async () => {
    const victim = await add();
    const attacker = await add();
    const { encrypted_server_url } = await knex(TABLE).where({ id: victim.id }).first();
    await knex(TABLE).where({ id: attacker.id }).update({ encrypted_server_url });

    await expect(store.getProvider('tenant-a', attacker.id)).rejects.toBeInstanceOf(EncryptionKeyError);
    expect((await store.getProvider('tenant-a', victim.id))?.serverUrl).toBe(SECRET_URL);
  });
});

describe('knexToolProviderStore options', () => {
  const knex = Object.assign(() => {}, { schema: {} }) as unknown as Knex;

  it('a missing key is a configuration error naming encryptionKey', () => {
    const error = new ConfigurationError(
      'invalid_options',
      'knexToolProviderStore: invalid option "encryptionKey": is required: must be a 32-byte Buffer or 64 hexadecimal characters',
    );
    expect(() => knexToolProviderStore(knex, {} as never)).toThrow(error);
    expect(() => knexToolProviderStore(knex, undefined as never)).toThrow(error);
  });

  it.each([
    ['a 16-byte Buffer', randomBytes(16)],
    ['a short hex string', 'abcd'],
    ['a passphrase', 'correct horse battery staple, correct horse battery staple, x'],
    ['a number', 42],
  ])('%s is not a key', (_name, encryptionKey) => {
    expect(() => knexToolProviderStore(knex, { encryptionKey } as never)).toThrow(
      new ConfigurationError(
        'invalid_options',
        'knexToolProviderStore: invalid option "encryptionKey": must be a 32-byte Buffer or 64 hexadecimal characters',
      ),
    );
  });

  it('unknown options and a non-Knex first argument are refused', () => {
    expect(() => knexToolProviderStore(knex, { encryptionKey: KEY, cacheTtlMs: 5 } as never)).toThrow(
      'unknown option "cacheTtlMs"',
    );
    expect(() => knexToolProviderStore({} as Knex, { encryptionKey: KEY })).toThrow(
      'knexToolProviderStore: the first argument must be a Knex instance',
    );
    expect(() => knexToolProviderStore({} as Knex, { encryptionKey: KEY })).toThrow(
      expect.objectContaining({ code: 'invalid_knex' }),
    );
  });
});
