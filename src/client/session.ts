import { FIRST_MODERN_VERSION } from '../versions.js';
import type { RemoteProgress } from './types.js';

export type TransportKind = 'streamable-http' | 'sse';

/** The stateless revision, spoken through the client package 2.x (README, "Protocol versions"). */
export const MODERN_VERSION = FIRST_MODERN_VERSION;

/** A tool as a page of `tools/list` gives it. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
}

/** What one request may take, and where its progress goes. */
export interface RequestLimits {
  timeout: number;
  signal?: AbortSignal | undefined;
  onprogress?: (progress: RemoteProgress) => void;
}

/**
 * An open session with a remote server, whichever client SDK opened it and whichever protocol era
 * it speaks: what a connection needs of it. Requests reject with a `RemoteMcpError`, each read from
 * what happened to that request alone (see `exchange`).
 */
export interface Session {
  readonly kind: TransportKind;
  /** The protocol revision the client and the server settled on. */
  readonly protocolVersion: string | undefined;
  readonly serverInfo: { name: string; version: string } | undefined;
  /** One page of `tools/list`. */
  listTools(
    cursor: string | undefined,
    limits: RequestLimits,
  ): Promise<{ tools: ListedTool[]; nextCursor?: string | undefined }>;
  /** One `tools/call`, its result as the server sent it; `tool` is its listing, when known. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    tool: ListedTool | undefined,
    limits: RequestLimits,
  ): Promise<Record<string, unknown>>;
  /** Settles once the notifications under way (a cancellation) have been sent; never rejects. */
  sent(): Promise<void>;
  /** Ends the session on the server (HTTP DELETE) when the server gave one. */
  terminate(): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
}
