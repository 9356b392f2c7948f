import { AsyncResource } from 'node:async_hooks';
import DataLoader from 'dataloader';
import { withCodeRedacted } from './redact.js';

/** At most this many codes in one query: far below SQLite's 32,766 bound parameters. */
const MAX_CODES_PER_QUERY = 100;

/**
 * Node's own `setImmediate`, taken before a host's tests can replace it with fake timers (which
 * would hold every lookup until the test advanced them).
 */
const immediate = setImmediate;

/**
 * A shared query belongs to no one request: it runs in the context this module was loaded in, not
 * in the first caller's (whose AsyncLocalStorage, tracing span or database settings would
 * otherwise apply to the other callers' lookups too).
 */
const outsideAnyRequest = new AsyncResource('express-app-mcp.code-lookups');

/**
 * Code lookups that start in the same turn of the event loop go to the database as one query
 * (`server_code in (…)`), sent once the turn's I/O callbacks have run (`setImmediate`). Every
 * lookup still reads the database after it began, so this is as fresh as a query of its own; under
 * load a burst of cache misses costs one round trip instead of one each. Nothing is remembered
 * between turns: caching is the code cache's job. A query that fails fails every lookup it
 * served, with the same error.
 */
export function codeLookups<Row extends { server_code: string }>(
  query: (codes: string[]) => Promise<Row[]>,
): (code: string) => Promise<Row | null> {
  const loader = new DataLoader<string, Row | null>(
    async (codes) => {
      const unique = [...new Set(codes)];
      const rows = await withCodeRedacted(unique, () => query(unique));
      const byCode = new Map(rows.map((row) => [row.server_code, row]));
      return codes.map((code) => byCode.get(code) ?? null);
    },
    {
      cache: false,
      maxBatchSize: MAX_CODES_PER_QUERY,
      batchScheduleFn: (send) => immediate(() => outsideAnyRequest.runInAsyncScope(send)),
    },
  );
  return (code) => loader.load(code);
}
