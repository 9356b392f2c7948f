import type { AuthInfo, Caller, ResolvedServer, ResolveOptions, ServerRecord } from '../types/index.js';

/** The transport headers the protocol reads, as plain values; names follow MCP Streamable HTTP. */
export interface McpHeaders {
  /** `MCP-Protocol-Version` */
  protocolVersion?: string;
  /** `Mcp-Method` (2026-07-28) */
  method?: string;
  /** `Mcp-Name` (2026-07-28) */
  name?: string;
  /** `Mcp-Session-Id` (legacy era): what the client declared at `initialize`, signed. */
  sessionId?: string;
}

/**
 * One HTTP request to the endpoint, reduced to what the protocol core needs. `HostRequest` is the
 * framework's own request object, which the core hands to `runApp` without looking inside.
 */
export interface EndpointRequest<HostRequest = unknown> {
  /** The parsed JSON body. */
  payload: unknown;
  headers: McpHeaders;
  /**
   * Looks the URL's server code up; called at most once, and only for a well-formed request.
   * `options.checkServer` goes to the resolver, which runs it before loading the app.
   */
  resolve: (options?: ResolveOptions) => Promise<ResolvedServer | null>;
  /**
   * Lets the caller of an `"oauth"` server in, or throws `AccessRefused`; absent when this route
   * has no per-user access (an `"oauth"` server then refuses every request).
   */
  authenticate?: (server: ServerRecord) => Promise<AuthInfo>;
  /**
   * Lets the caller of a `"key"` server in by the caller key the request presents, or throws
   * `AccessRefused` (docs/keys.md); absent on a route whose bearer is not a caller key.
   */
  authenticateKey?: (server: ServerRecord) => Promise<Extract<Caller, { kind: 'key' }>>;
  /**
   * Calls `listener` when the client goes away before the reply is written (at once if it already
   * has); returns a function that stops watching. Only a run watches, so a list or a ping pays for
   * nothing, and a run pays for a plain event listener rather than a signal of its own.
   */
  onClosed: (listener: () => void) => () => void;
  /**
   * Whether the client takes a `text/event-stream` reply (its `Accept` allows one); only then may
   * a `tools/call` reply stream. Absent: it may not.
   */
  acceptsEventStream?: boolean;
  /** Handed to `runApp` untouched. */
  request: HostRequest;
  /** `Last-Event-ID` of a `GET` that resumes a stream (MCP Streamable HTTP); absent on a POST. */
  lastEventId?: string;
}
