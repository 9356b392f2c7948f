import type { IncomingMessage } from 'node:http';
import { AccessRefused } from '../errors/access-refused.js';
import { McpError } from '../errors/mcp-error.js';

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

/**
 * The header route's bearer is the server code, never a user's access token, so it signs nobody in:
 * the caller of an `"oauth"` server is sent to the server's path URL, where its OAuth token is
 * checked (docs/http-contract.md, row 12e). No challenge: signing in would not help on this route.
 */
export const oauthNeedsPathUrl = (): Promise<never> =>
  Promise.reject(
    new AccessRefused(
      'forbidden',
      'Forbidden: this MCP server requires a signed-in user; connect to its path URL (/mcp/server/<server code>/mcp) with an OAuth access token instead of sending the server code as a bearer token',
    ),
  );

/**
 * Likewise a `"key"` server: the header route's bearer is the code, so there is no room for the
 * caller key; the caller is sent to the path URL, with the key as its bearer (docs/keys.md).
 */
export const keyNeedsPathUrl = (): Promise<never> =>
  Promise.reject(
    new AccessRefused(
      'forbidden',
      'Forbidden: this MCP server requires a caller key; connect to its path URL (/mcp/server/<server code>/mcp) with Authorization: Bearer <key> instead of sending the server code as a bearer token',
    ),
  );
