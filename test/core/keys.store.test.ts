/**
 * The key logic both stores share (docs/keys.md), on the memory store: the secret's form and
 * randomness, what is kept of it (a SHA-256, or an HMAC with `keyPepper`), and what `verify` lets in.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryServerStore } from '../../src/index.js';
import { cachedKeyStore } from '../../src/store/keys/key-store.js';
import { memoryKeyRows } from '../../src/store/keys/memory-rows.js';

const PEPPER = 'a pepper of the host, 32 chars..';

describe('caller keys in a store', () => {
  it('a secret is mcpk_<prefix>_<43 base64url characters>: 256 random bits, all different', async () => {
    const store = memoryServerStore();
    const secrets = new Set<string>();
    for (let i = 0; i < 200; i++) secrets.add((await store.keys!.create('s1', { name: `k${i}` })).secret);
    expect(secrets.size).toBe(200);
    for (const secret of secrets) expect(secret).toMatch(/^mcpk_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
  });

  it('only the SHA-256 of the secret is kept, or its HMAC-SHA-256 with keyPepper', async () => {
    for (const pepper of [undefined, PEPPER]) {
      const rows = memoryKeyRows();
      const keys = cachedKeyStore(rows, {
        cacheTtlMs: 0,
        cacheMaxEntries: 10,
        ...(pepper ? { pepper } : {}),
      });
      const { key, secret } = await keys.create('s1', { name: 'ci' });
      const [row] = await rows.list('s1');
      const expected = pepper
        ? createHmac('sha256', pepper).update(secret).digest('hex')
        : createHash('sha256').update(secret).digest('hex');
      expect(row).toMatchObject({
        id: key.id,
        prefix: key.prefix,
        secret_hash: expected,
        previous_hash: null,
      });
      expect(JSON.stringify(row)).not.toContain(secret.slice(14));
    }
  });

  it('a store with another pepper knows none of the keys', async () => {
    const rows = memoryKeyRows();
    const peppered = cachedKeyStore(rows, { cacheTtlMs: 0, cacheMaxEntries: 10, pepper: PEPPER });
    const { secret } = await peppered.create('s1', { name: 'ci' });
    expect(await peppered.verify('s1', secret)).toMatchObject({ name: 'ci' });
    const other = cachedKeyStore(rows, { cacheTtlMs: 0, cacheMaxEntries: 10, pepper: `${PEPPER}!` });
    expect(await other.verify('s1', secret)).toBeNull();
    const plain = cachedKeyStore(rows, { cacheTtlMs: 0, cacheMaxEntries: 10 });
    expect(await plain.verify('s1', secret)).toBeNull();
  });

  it('verify refuses another server, a changed character, revoked, expired, and a passed grace (an injected clock)', async () => {
    let now = 1_000_000;
    const keys = cachedKeyStore(memoryKeyRows(), { cacheTtlMs: 60_000, cacheMaxEntries: 10, now: () => now });
    const { key, secret } = await keys.create('s1', { name: 'ci', expiresAt: new Date(now + 10_000) });
    expect(await keys.verify('s1', secret)).toMatchObject({ id: key.id, name: 'ci', serverId: 's1' });
    expect(await keys.verify('s2', secret)).toBeNull();
    const last = secret.at(-1) === 'A' ? 'B' : 'A';
    expect(await keys.verify('s1', secret.slice(0, -1) + last)).toBeNull();
    const rotated = await keys.rotate('s1', key.id, 5000);
    expect(await keys.verify('s1', secret)).not.toBeNull();
    now += 5000;
    expect(await keys.verify('s1', secret)).toBeNull();
    expect(await keys.verify('s1', rotated!.secret)).not.toBeNull();
    now += 5000;
    expect(await keys.verify('s1', rotated!.secret)).toBeNull();
    const other = await keys.create('s1', { name: 'other' });
    expect(await keys.revoke('s1', other.key.id)).toBe(true);
    expect(await keys.verify('s1', other.secret)).toBeNull();
    expect(await keys.revoke('s1', 'nope')).toBe(false);
  });

  it('memoryServerStore refuses a short keyPepper', () => {
    expect(() => memoryServerStore({ keyPepper: 'short' })).toThrow(
      'memoryServerStore: invalid option "keyPepper": must be at least 16 characters',
    );
  });
});
