import { z } from 'zod';
import { functionOption } from '../util/factory-options.js';
import { FIRST_MODERN_VERSION } from '../versions.js';
import type { IsAllowedUrl } from './public-fetch.js';

/** Options of `connectMcpServer`. */
export interface ConnectMcpServerOptions {
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. Default: none. */
  headers?: Record<string, string>;
  /** Longest wait, in ms, to connect (`initialize`) and for each `tools/list`. Default `30000`. */
  timeoutMs?: number;
  /** Longest a tool call may take, in ms. Default `300000` (5 minutes). */
  callTimeoutMs?: number;
  /**
   * `'auto'` (default): by the URL's path, `…/mcp` → Streamable HTTP, `…/sse` → the 2024-11-05
   * HTTP+SSE transport, anything else → Streamable HTTP, then HTTP+SSE if that answers 400, 404
   * or 405. `'streamable-http'` or `'sse'`: that transport only.
   */
  transport?: 'auto' | 'streamable-http' | 'sse';
  /**
   * The protocol era (README, "Protocol versions"). `'auto'` (default): with
   * `@modelcontextprotocol/client` installed, ask `server/discover` first and speak `2026-07-28`
   * when the server offers it, else the `initialize` handshake of the 2025 era; without it, the
   * 2025 era only. `'2025'`: the handshake only, through `@modelcontextprotocol/sdk`.
   * The 2026-07-28 revision's own name: that revision only, through `@modelcontextprotocol/client`,
   * over Streamable HTTP.
   */
  protocol?: 'auto' | '2025' | typeof FIRST_MODERN_VERSION;
  /**
   * The most bytes a reply may hold, or one event of a streamed reply, counted once decompressed:
   * past it the request fails at once as an `invalid-reply`, and nothing more is read or kept.
   * Default `10485760` (10 MiB).
   */
  maxReplyBytes?: number;
  /** The most tools a `tools/list` may give, over all its pages; more is an `invalid-reply`. Default `1000`. */
  maxTools?: number;
  /**
   * `false`: connect only to public addresses. The URL's host, and that of every redirect, is
   * checked once resolved and before anything is sent: a loopback, private, link-local or other
   * special-purpose address (IANA's registries) is refused, as `unreachable`, unless `isAllowedUrl`
   * permits the URL. Default `true`, for the URLs your own code chooses; tool providers, whose
   * URLs tenant admins choose, default to `false` (docs/security.md).
   */
  allowPrivateNetworks?: boolean;
  /**
   * With `allowPrivateNetworks: false`, asked about each URL (the server's, and every redirect)
   * whose address is not public: `true` lets that one through. Default: none.
   */
  isAllowedUrl?: (url: URL) => boolean;
}

/** RFC 9110 §5.1: a header name is a token. */
export const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name');
/** RFC 9110 §5.5: no line breaks or NUL in a field value. */
export const headerValue = z.string().regex(/^[^\r\n\0]*$/, 'must not contain line breaks');
export const headersSchema = z.record(headerName, headerValue);

// setTimeout cannot wait longer than 2^31-1 ms: a larger value would fire at once.
export const timeoutSchema = z.int().positive().max(2_147_483_647);

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_REPLY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_TOOLS = 1000;

export const replyLimitsShape = {
  maxReplyBytes: z.int().positive().default(DEFAULT_MAX_REPLY_BYTES),
  maxTools: z.int().positive().default(DEFAULT_MAX_TOOLS),
};

/** The network a client may reach: `allowPrivateNetworks` defaults as the caller's kind of URL wants. */
export const networkShape = (allowPrivateNetworks: boolean) => ({
  allowPrivateNetworks: z.boolean().default(allowPrivateNetworks),
  isAllowedUrl: functionOption<IsAllowedUrl>().optional(),
});

export const connectOptionsSchema = z
  .strictObject({
    headers: headersSchema.default({}),
    timeoutMs: timeoutSchema.default(DEFAULT_TIMEOUT_MS),
    callTimeoutMs: timeoutSchema.default(DEFAULT_CALL_TIMEOUT_MS),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
    protocol: z.enum(['auto', '2025', FIRST_MODERN_VERSION]).default('auto'),
    ...replyLimitsShape,
    ...networkShape(true),
  })
  .refine((options) => !(options.protocol === FIRST_MODERN_VERSION && options.transport === 'sse'), {
    // MCP 2025-03-26 replaced HTTP+SSE with Streamable HTTP; the 2026-07-28 revision has only the latter.
    path: ['transport'],
    message: `cannot be 'sse' with protocol '${FIRST_MODERN_VERSION}', which runs over Streamable HTTP only`,
  });

/** The options, parsed, and the `fetch` every request of the connection goes through. */
export type ParsedConnectOptions = z.output<typeof connectOptionsSchema> & { fetch?: typeof fetch };
