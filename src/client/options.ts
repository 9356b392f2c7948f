import { z } from 'zod';
import { FIRST_MODERN_VERSION } from '../versions.js';

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

export const connectOptionsSchema = z
  .strictObject({
    headers: headersSchema.default({}),
    timeoutMs: timeoutSchema.default(DEFAULT_TIMEOUT_MS),
    callTimeoutMs: timeoutSchema.default(DEFAULT_CALL_TIMEOUT_MS),
    transport: z.enum(['auto', 'streamable-http', 'sse']).default('auto'),
    protocol: z.enum(['auto', '2025', FIRST_MODERN_VERSION]).default('auto'),
  })
  .refine((options) => !(options.protocol === FIRST_MODERN_VERSION && options.transport === 'sse'), {
    // MCP 2025-03-26 replaced HTTP+SSE with Streamable HTTP; the 2026-07-28 revision has only the latter.
    path: ['transport'],
    message: `cannot be 'sse' with protocol '${FIRST_MODERN_VERSION}', which runs over Streamable HTTP only`,
  });

export type ParsedConnectOptions = z.output<typeof connectOptionsSchema>;
