import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

/**
 * What a browser page may send: the headers of MCP Streamable HTTP (2025-03-26 on: the version,
 * the session id, `Last-Event-ID` for resumption; 2026-07-28: `Mcp-Method` and `Mcp-Name`) and
 * `Authorization` for a server code sent as a bearer token.
 */
const REQUEST_HEADERS = [
  'Content-Type',
  'Accept',
  'Authorization',
  'MCP-Protocol-Version',
  'Mcp-Session-Id',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
];

/** What a page may read from a reply besides the CORS-safelisted headers (`Retry-After`: 429 and 503). */
const RESPONSE_HEADERS = ['MCP-Protocol-Version', 'Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After'];

type Next = (error?: unknown) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/**
 * The CORS protocol (Fetch standard; docs/http-contract.md, "Browsers of other origins") for the
 * origins `allowed` admits: a preflight is answered here; any other request gets the CORS headers
 * and goes on. Requests without an `Origin`, or from an origin it does not admit, go on untouched,
 * to be refused by the Origin check.
 * GET and DELETE are allowed as well as POST so that a page reads the endpoint's own 405 reply
 * (MCP clients probe them) instead of failing on the preflight.
 */
export function corsForOrigins(allowed: (req: IncomingMessage, origin: string) => boolean): Middleware {
  const withCors = cors({
    origin: true, // reflects the request's origin, which `allowed` admitted
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: REQUEST_HEADERS,
    exposedHeaders: RESPONSE_HEADERS,
    maxAge: 86_400,
  });
  return (req, res, next) => {
    const { origin } = req.headers;
    if (origin === undefined || !allowed(req, origin)) return next();
    withCors(req, res, next);
  };
}
