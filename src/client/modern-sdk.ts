import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { lazyPeer } from './peer.js';

/** The parts of the official MCP client package (2.x) the 2026-07-28 era uses. */
export interface ModernClientSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

export const MODERN_SDK = '@modelcontextprotocol/client';

/** Loads `@modelcontextprotocol/client`, an optional peer dependency, on first use (see `lazyPeer`). */
export const loadModernSdk = lazyPeer<ModernClientSdk>(MODERN_SDK, async () => {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  return { Client, StreamableHTTPClientTransport };
});
