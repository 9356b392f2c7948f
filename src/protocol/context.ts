import type { Request } from 'express';
import type { ResolvedServer } from '../types.js';

/** The transport headers the protocol reads; names follow MCP Streamable HTTP. */
export interface McpHeaders {
  /** `MCP-Protocol-Version` */
  protocolVersion?: string;
  /** `Mcp-Method` (2026-07-28) */
  method?: string;
  /** `Mcp-Name` (2026-07-28) */
  name?: string;
}

/** One HTTP request to the endpoint, reduced to what the protocol core needs. */
export interface EndpointRequest {
  /** The parsed JSON body. */
  payload: unknown;
  headers: McpHeaders;
  /** Looks the URL's server code up; called at most once, and only for a well-formed request. */
  resolve: () => Promise<ResolvedServer | null>;
  /**
   * Calls `listener` when the client goes away before the reply is written (at once if it already
   * has); returns a function that stops watching. Only a run watches, so a list or a ping pays for
   * nothing, and a run pays for a plain event listener rather than a signal of its own.
   */
  onClosed: (listener: () => void) => () => void;
  /** Handed to `runApp` untouched. */
  request: Request;
}

/** What the Express layer writes: a status and, unless 202, a JSON-RPC body. */
export interface EndpointReply {
  status: number;
  body?: unknown;
  /** `JSON.stringify(body)`, when the core has it at hand already (a pre-serialized result). */
  json?: string;
}

/** Where internal failures go, with what was being done; never the server code. */
export type ErrorReporter = (error: unknown, context: ErrorContext) => void;

export interface ErrorContext {
  /** `onCall`: the host's `onCall` hook threw or rejected. */
  phase: 'resolve' | 'initialize' | 'tools/list' | 'tools/call' | 'run' | 'outputs' | 'dispatch' | 'onCall';
  serverId?: string;
  appId?: string;
}
