/**
 * A PostgreSQL the test can cut off: a TCP proxy in front of the suite's database (`tcp-proxy.ts`)
 * and a Knex instance that reaches it only through the proxy, with the pool settings a host would
 * have (Knex's own acquire timeout, 60 s: only the package's deadlines can answer sooner).
 */
import knexFactory, { type Knex } from 'knex';
import { expect } from 'vitest';
import type { Reply } from './hosts.js';
import { startTcpProxy, type TcpProxy, throughProxy } from './tcp-proxy.js';

export interface CutDatabase {
  proxy: TcpProxy;
  /** The suite's database through the proxy. */
  knex: Knex;
  close(): Promise<void>;
}

/** The two outages the suites cut: a database that refuses, and a network that drops every packet. */
export const OUTAGES = [
  ['refuses connections', 'reset'],
  ['drops every packet', 'silence'],
] as const;

/** `direct`'s database (same search path) behind a proxy. */
export async function cutDatabase(direct: Knex): Promise<CutDatabase> {
  const url = new URL(process.env.TEST_POSTGRES_URL as string);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  const knex = knexFactory({
    client: 'pg',
    connection: throughProxy(url.toString(), proxy),
    searchPath: direct.client.config.searchPath,
    pool: { min: 0, max: 4 },
  });
  return {
    proxy,
    knex,
    async close() {
      proxy.restore();
      await knex.destroy();
      await proxy.close();
    },
  };
}

/** The 503 of an outage: `Retry-After` in whole seconds, and no body detail. */
export function expectRetryAfter(reply: Reply): void {
  expect(reply.status).toBe(503);
  expect(reply.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
}
