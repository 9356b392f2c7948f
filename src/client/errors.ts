/** What went wrong with a remote MCP server, for hosts that branch on it. */
export type RemoteMcpErrorKind =
  /** Nothing answered: connection refused, unknown host, reset before a reply. */
  | 'unreachable'
  /** No answer within the time allowed. */
  | 'timeout'
  /** An HTTP error status (an HTML error page, a proxy's 502, a 404 at that path…). */
  | 'http'
  /** An answer that is not MCP: not JSON, not JSON-RPC, an unexpected content type or protocol version. */
  | 'invalid-reply'
  /** A JSON-RPC error from the server, e.g. -32602 for an unknown tool. */
  | 'rpc'
  /** The server closed the connection before answering. */
  | 'closed';

/**
 * Why a remote MCP server could not be used. The message always names the server by its URL
 * without credentials, query or fragment (`server`), which may hold secrets; `reason` is the same
 * text without the server, for callers that show the server their own way.
 */
export class RemoteMcpError extends Error {
  override name = 'RemoteMcpError';
  /** The HTTP status, for `http`. */
  readonly status: number | undefined;
  /** The JSON-RPC error code and data, for `rpc`; the code also for `http` when the reply was a JSON-RPC error. */
  readonly rpcCode: number | undefined;
  readonly data: unknown;

  constructor(
    readonly server: string,
    readonly kind: RemoteMcpErrorKind,
    readonly reason: string,
    details: { status?: number; rpcCode?: number; data?: unknown } = {},
  ) {
    super(`MCP server ${server}: ${reason}`);
    this.status = details.status;
    this.rpcCode = details.rpcCode;
    this.data = details.data;
  }
}

/** The URL that names a remote server in errors: scheme, host and path only. */
export function describeServer(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
