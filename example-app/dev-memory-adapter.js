/**
 * Where the development authorization server keeps its records (clients, sessions, grants,
 * codes, tokens): in this process's memory, gone at restart, at most 1000 of them. It is the
 * storage `oidc-provider` falls back to without an `adapter`, written out so that the example
 * says plainly what it does instead of starting with that package's warning about its fallback.
 * A real identity provider keeps these in a database.
 *
 * The methods are those of `oidc-provider`'s adapter interface: records by model and id, found
 * again by session `uid` and device `userCode`, and all the tokens of a grant revoked at once.
 */
import { LRUCache } from 'lru-cache';

/** The models whose records belong to a grant, revoked with it. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** A new, empty store, and the adapter factory `oidc-provider` takes as `adapter`. */
export function devMemoryAdapter() {
  const records = new LRUCache({ max: 1000 });
  /** The record keys of each grant. */
  const grants = new Map();
  const keep = (key, value, expiresIn) =>
    records.set(key, value, typeof expiresIn === 'number' ? { ttl: expiresIn * 1000 } : {});

  return (model) => {
    const key = (id) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        keep(key(id), payload, expiresIn);
        if (model === 'Session' && payload.uid) keep(`uid:${payload.uid}`, id, expiresIn);
        if (payload.userCode) keep(`userCode:${payload.userCode}`, id, expiresIn);
        if (GRANTABLE.has(model) && payload.grantId) {
          if (!grants.has(payload.grantId)) grants.set(payload.grantId, new Set());
          grants.get(payload.grantId).add(key(id));
        }
      },
      async find(id) {
        return records.get(key(id));
      },
      async findByUid(uid) {
        const id = records.get(`uid:${uid}`);
        return id === undefined ? undefined : records.get(key(id));
      },
      async findByUserCode(userCode) {
        const id = records.get(`userCode:${userCode}`);
        return id === undefined ? undefined : records.get(key(id));
      },
      async consume(id) {
        const payload = records.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        records.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const member of grants.get(grantId) ?? []) records.delete(member);
        grants.delete(grantId);
      },
    };
  };
}
