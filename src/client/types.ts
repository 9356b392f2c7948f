import type { AppFile } from '../types/index.js';

/** A tool of a remote MCP server, as its `tools/list` describes it. */
export interface RemoteTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The tool's hints (`readOnlyHint`, …), as the server gave them: a host may ask before running a tool that is not read-only. */
  annotations?: Record<string, unknown>;
}

/** A progress notification of a running tool call (MCP `notifications/progress`). */
export interface RemoteProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * A tool call's result, read the way Dify's tool node reads it, with the result as it came in
 * `raw` for anything else.
 */
export interface RemoteToolResult {
  /** The tool's own verdict (`isError` of the result); `false` when absent. */
  isError: boolean;
  /** The text blocks, joined with newlines; `''` when there are none. */
  text: string;
  /**
   * JSON values, in order: the `structuredContent` of a tool without an `outputSchema`, then every
   * text block that is a JSON object or array (parsed), except one that repeats `structuredContent`.
   */
  json: unknown[];
  /** One entry per top-level key of `structuredContent`, when the tool has an `outputSchema`; else `{}`. */
  variables: Record<string, unknown>;
  /** The `image`, `audio`, `resource` and `resource_link` blocks, in order. */
  files: AppFile[];
  /** The `tools/call` result as the server sent it. */
  raw: Record<string, unknown>;
}

/** Options of one `callTool`. */
export interface CallToolOptions {
  /**
   * Aborting it cancels the call (the server gets `notifications/cancelled`), or the listing of the
   * tools that comes first, and rejects with its reason at once.
   */
  signal?: AbortSignal;
  /** Receives the server's progress notifications for this call. */
  onProgress?: (progress: RemoteProgress) => void;
}

/** An open connection to a remote MCP server. */
export interface McpServerConnection {
  /** The transport that connected: Streamable HTTP, or the HTTP+SSE transport of 2024-11-05. */
  readonly transport: 'streamable-http' | 'sse';
  /**
   * The protocol revision in use: `2026-07-28`, or the one `initialize` settled on in the 2025 era
   * (`2024-11-05` to `2025-11-25`).
   */
  readonly protocolVersion: string | undefined;
  /** The server's `serverInfo`: from `initialize`, or from `server/discover` in the 2026-07-28 era. */
  readonly serverInfo: { name: string; version: string } | undefined;
  /**
   * Every tool of the server (all pages of `tools/list`). A repeated cursor, two tools of one name,
   * more than 100 pages or more than `maxTools` tools are an `invalid-reply` error, never a
   * repeated or partial list.
   */
  listTools(): Promise<RemoteTool[]>;
  /** Calls a tool. Lists the tools first when this connection has not yet, to know its `outputSchema`. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<RemoteToolResult>;
  /** Ends the session (HTTP DELETE when the server gave one) and closes the connection; idempotent. */
  close(): Promise<void>;
}
