import { McpError } from '../errors/mcp-error.js';
import { ANY_ORIGIN } from './allowed-origins.js';
import { parseHostValue } from './host-value.js';

/**
 * Transport checks of docs/http-contract.md, rows 2 to 5, on plain header values so they need no framework. Each
 * returns an `McpError` to write, or `null` when the request may go on.
 */

/**
 * Row 2: a browser's `Origin` must be the request's own origin or an allowed one (`allowedOrigins`,
 * as `AllowedOriginsSchema` normalised them; `'*'` allows any).
 */
export function checkOrigin(
  origin: string | undefined,
  ownOrigin: string,
  allowedOrigins: ReadonlySet<string>,
): McpError | null {
  if (origin === undefined) return null; // non-browser clients send no Origin
  const normalized = origin.toLowerCase();
  if (
    normalized === ownOrigin.toLowerCase() ||
    allowedOrigins.has(normalized) ||
    allowedOrigins.has(ANY_ORIGIN)
  )
    return null;
  return new McpError(
    'originNotAllowed',
    `Origin not allowed: ${origin}. Pages of other origins must be listed in the allowedOrigins option`,
  );
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Row 3, DNS rebinding: only a server listening on loopback is checked; there, `Host` must name
 * the loopback itself (any port) or be an allowed host.
 */
export function checkHost(
  host: string | undefined,
  listensOnLoopback: boolean,
  allowedHosts: ReadonlySet<string>,
): McpError | null {
  if (!listensOnLoopback || isAllowedHost(host, listensOnLoopback, allowedHosts)) return null;
  return hostNotAllowed(host);
}

/** A loopback name on a server that listens on loopback, or one of `allowedHosts`. */
export function isAllowedHost(
  host: string | undefined,
  listensOnLoopback: boolean,
  allowedHosts: ReadonlySet<string>,
): boolean {
  const parsed = parseHostValue(host ?? '');
  return (
    parsed !== null &&
    ((listensOnLoopback && LOOPBACK_HOSTNAMES.has(parsed.hostname)) ||
      allowedHosts.has(parsed.hostname) ||
      allowedHosts.has(`${parsed.hostname}:${parsed.port}`))
  );
}

export function hostNotAllowed(host: string | undefined): McpError {
  return new McpError(
    'hostNotAllowed',
    `Host not allowed: ${host ?? '(none)'}. A reverse proxy that forwards other host names must list them in the allowedHosts option`,
  );
}

/**
 * Row 4: the body must be JSON (`application/json` or a `+json` type), in UTF-8: RFC 8259 §8.1
 * makes it the one encoding of JSON between systems, and the body is read as UTF-8.
 */
export function checkContentType(contentType: string | undefined): McpError | null {
  const type = mediaType(contentType ?? '');
  const json = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
  if (json && isUtf8(charsetOf(contentType ?? ''))) return null;
  return new McpError(
    'unsupportedMediaType',
    'Unsupported Media Type: Content-Type must be application/json',
  );
}

function charsetOf(header: string): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(header);
  return match ? (match[1] ?? match[2] ?? '').toLowerCase() : undefined;
}

const isUtf8 = (charset: string | undefined) =>
  charset === undefined || charset === 'utf-8' || charset === 'utf8';

const ACCEPTABLE = new Set(['application/json', 'text/event-stream', '*/*', 'application/*', 'text/*']);

/** What MCP clients send (the official SDKs send the first), all acceptable without parsing. */
const COMMON_ACCEPTS = new Set([
  'application/json, text/event-stream',
  'text/event-stream, application/json',
  'application/json,text/event-stream',
  'application/json',
  'text/event-stream',
  '*/*',
]);

/** Row 5: an `Accept` header must allow JSON or an event stream (a streamed reply is an event stream). */
export function checkAccept(accept: string | undefined): McpError | null {
  if (accept === undefined || COMMON_ACCEPTS.has(accept) || accept.trim() === '') return null;
  if (acceptsAnyOf(accept, ACCEPTABLE)) return null;
  return new McpError(
    'notAcceptable',
    'Not Acceptable: the client must accept application/json or text/event-stream',
  );
}

const EVENT_STREAM = new Set(['text/event-stream', 'text/*', '*/*']);

/** The usual `Accept` values, answered without parsing. */
const COMMON_EVENT_STREAM_ACCEPTS = new Map(
  [...COMMON_ACCEPTS].map((accept) => [accept, accept !== 'application/json']),
);

/**
 * Whether a reply may be a `text/event-stream`: the `Accept` header allows one. No header allows
 * any type (RFC 9110 §12.5.1); MCP clients send `application/json, text/event-stream`.
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return COMMON_EVENT_STREAM_ACCEPTS.get(accept) ?? acceptsAnyOf(accept, EVENT_STREAM);
}

/** Whether one of the header's media ranges is one of `types` and not refused with `q=0`. */
function acceptsAnyOf(accept: string, types: ReadonlySet<string>): boolean {
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    const refused = params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(param));
    if (!refused && types.has(type.trim().toLowerCase())) return true;
  }
  return false;
}

function mediaType(header: string): string {
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}
