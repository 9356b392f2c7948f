import { LRUCache } from 'lru-cache';
import type { EndUser } from '../types/index.js';

/**
 * End users in this process, one promise per server and subject (`''` on a `"code"` server): an end
 * user never changes once created, so it needs no TTL, and concurrent first calls share one creation.
 */
export class EndUserCache {
  readonly #entries: LRUCache<string, Promise<EndUser>>;

  constructor(maxEntries: number) {
    this.#entries = new LRUCache({ max: maxEntries });
  }

  /** The cached end user, or the one `create` makes; a failed creation is not kept, so the next call tries again. */
  getOrCreate(serverId: string, subject: string, create: () => Promise<EndUser>): Promise<EndUser> {
    const key = keyOf(serverId, subject);
    let endUser = this.#entries.get(key);
    if (!endUser) {
      endUser = create();
      this.#entries.set(key, endUser);
      endUser.catch(() => {
        if (this.#entries.get(key) === endUser) this.#entries.delete(key);
      });
    }
    return endUser;
  }

  /** Drops every end user of a server (it was unpublished). */
  forget(serverId: string): void {
    const prefix = keyOf(serverId, '');
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key);
  }
}

// Server ids hold no line break, so the key is unambiguous.
const keyOf = (serverId: string, subject: string) => `${serverId}\n${subject}`;
