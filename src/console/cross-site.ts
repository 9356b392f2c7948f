import type { Request } from 'express';
import { ConsoleError } from './errors.js';

/** The methods that change nothing: only a route that says otherwise (a `GET` that rotates) is a write. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A console write a browser sent from another site, refused before anything runs (docs/security.md,
 * "Console writes from other sites"): a write without a body (rotate, delete) passes the JSON
 * content-type rule, and a host whose `authorize` reads a cookie would do what a page elsewhere
 * asks. A browser says where a request comes from in `Sec-Fetch-Site` (Fetch Metadata), which no
 * page can forge; `same-origin` (the console's own page) and `none` (the person's own doing) pass,
 * anything else (`cross-site`, `same-site`) is refused. A browser without it sends `Origin`, which
 * must then be the request's own (scheme and `Host`; the scheme as Express sees it, so behind a
 * TLS proxy set `trust proxy`). A request with neither (curl, another server) carries no
 * browser's cookies, and passes. `null` when the request may go on.
 */
export function crossSiteWrite(req: Request, write: boolean): ConsoleError | null {
  if (!write && SAFE_METHODS.has(req.method)) return null;
  const site = single(req.headers['sec-fetch-site']);
  if (site === 'same-origin' || site === 'none') return null;
  if (site !== undefined) return refused(`Sec-Fetch-Site: ${site}`);
  const origin = single(req.headers.origin);
  if (origin === undefined) return null;
  const own = `${req.protocol}://${req.headers.host ?? ''}`;
  return origin.toLowerCase() === own.toLowerCase() ? null : refused(`Origin: ${origin}`);
}

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

const refused = (why: string) =>
  new ConsoleError(
    'forbidden',
    `Requests from another site may not change the console (${why}); use the console's own page, or send the request without a browser`,
  );
