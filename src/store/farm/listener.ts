import type { Knex } from 'knex';

/** The few things of a `pg` client the listener uses. */
interface PgConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: () => void): void;
  end(): Promise<void>;
  connection?: { stream?: { destroy(): void } };
}

export interface ListenerOptions {
  /** The channels to `LISTEN` on. */
  channels: string[];
  /** Called with every notification on one of the channels. */
  onNotification(channel: string, payload: string): void;
  /**
   * Called each time the connection is (re)established and listening: notifications sent while
   * there was none are lost, so whatever they would have invalidated must be dropped now.
   */
  onListening(): void;
}

/** How long connecting or a heartbeat may take before the connection counts as lost. */
const CONNECT_TIMEOUT_MS = 5000;
/**
 * A connection that only listens sends nothing, so a network that silently drops packets would
 * leave it waiting forever: a query at this interval proves it is still there.
 */
const HEARTBEAT_MS = 5000;
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5000;

/**
 * One PostgreSQL connection of our own, outside the host's pool (a pooled connection would be
 * handed to other queries, and `LISTEN` belongs to a session), that listens on a few channels.
 * Started by `start()`, it reconnects by itself, with a growing delay, whenever it is lost, and
 * ends with `close()`. Made through the host's Knex, so it uses the host's driver and settings.
 */
export class PostgresListener {
  readonly #knex: Knex;
  readonly #options: ListenerOptions;
  #started = false;
  #closed = false;
  #connection: PgConnection | undefined;
  #retryMs = FIRST_RETRY_MS;
  #timer: NodeJS.Timeout | undefined;

  constructor(knex: Knex, options: ListenerOptions) {
    this.#knex = knex;
    this.#options = options;
  }

  /** Whether the connection is up and listening right now. */
  get listening(): boolean {
    return this.#connection !== undefined;
  }

  /** Connects on the first call; later calls do nothing. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#connect();
  }

  /** Ends the connection and stops reconnecting. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) await endQuietly(connection);
  }

  async #connect(): Promise<void> {
    // The host destroyed its Knex instance (shutting down) without closing the store first.
    if (!this.#knex.client.pool) return void this.close();
    let connection: PgConnection | undefined;
    try {
      const connecting = this.#knex.client.acquireRawConnection() as Promise<PgConnection>;
      let gaveUp = false;
      // A connection that arrives after the deadline is of no use any more.
      connecting.then((late) => gaveUp && void endQuietly(late)).catch(() => {});
      connection = await within(connecting, CONNECT_TIMEOUT_MS).catch((error: unknown) => {
        gaveUp = true;
        throw error;
      });
      const live = connection;
      live.on('notification', ({ channel, payload }) => this.#options.onNotification(channel, payload ?? ''));
      live.on('error', () => this.#lost(live));
      live.on('end', () => this.#lost(live));
      for (const channel of this.#options.channels) {
        await within(live.query(`LISTEN ${quoteIdentifier(channel)}`), CONNECT_TIMEOUT_MS);
      }
      if (this.#closed) return void endQuietly(live);
      this.#connection = live;
      this.#retryMs = FIRST_RETRY_MS;
      this.#options.onListening();
      this.#schedule(HEARTBEAT_MS, () => this.#heartbeat(live));
    } catch {
      if (connection) void endQuietly(connection);
      this.#retry();
    }
  }

  async #heartbeat(connection: PgConnection): Promise<void> {
    if (!this.#knex.client.pool) return void this.close();
    try {
      await within(connection.query('select 1'), CONNECT_TIMEOUT_MS);
      if (this.#connection === connection) this.#schedule(HEARTBEAT_MS, () => this.#heartbeat(connection));
    } catch {
      this.#lost(connection);
    }
  }

  /** The connection failed or ended: drop it and connect again. */
  #lost(connection: PgConnection): void {
    if (this.#connection !== connection) return;
    this.#connection = undefined;
    clearTimeout(this.#timer);
    void endQuietly(connection);
    this.#retry();
  }

  #retry(): void {
    if (this.#closed) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, LAST_RETRY_MS);
    this.#schedule(delay, () => this.#connect());
  }

  #schedule(ms: number, work: () => Promise<void>): void {
    clearTimeout(this.#timer);
    if (this.#closed) return;
    this.#timer = setTimeout(() => void work(), ms);
    // The listener serves the host's process; it never keeps it alive on its own.
    this.#timer.unref();
  }
}

/** Ends a connection without waiting on a network that may not answer. */
async function endQuietly(connection: PgConnection): Promise<void> {
  connection.on('error', () => {}); // a late error of a connection we dropped is no one's concern
  const ending = connection.end().catch(() => {});
  const timer = setTimeout(() => connection.connection?.stream?.destroy(), CONNECT_TIMEOUT_MS);
  timer.unref();
  await ending;
  clearTimeout(timer);
}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from PostgreSQL within ${ms} ms`)), ms);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** A channel name is an identifier in `LISTEN`; quoted, it keeps its case, as `pg_notify` does. */
export const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
