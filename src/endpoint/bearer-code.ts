import type { IncomingMessage } from 'node:http';
import { McpError } from '../protocol/errors.js';

/**
 * The endpoint with the server code in a header instead of the URL, relative to where the host
 * mounts the router: for teams whose rules keep secrets out of URLs (docs/http-contract.md, "The
 * code in a header").
 */
export const BEARER_ROUTE = '/mcp/server/mcp';

/** RFC 6750 §2.1: `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^bearer +(\S+) *$/i;

/** The server code a request carries as a bearer token, or `null` when it carries none. */
export function bearerCodeOf(req: IncomingMessage): string | null {
  const match = BEARER.exec(req.headers.authorization ?? '');
  return match ? (match[1] as string) : null;
}

/** RFC 6750 §3: a request without the token is told which scheme to use (docs/http-contract.md, row 5a). */
export const BEARER_CHALLENGE = 'Bearer';

export const missingBearer = () =>
  new McpError('unauthorized', 'Unauthorized: send the server code as Authorization: Bearer <server code>');
