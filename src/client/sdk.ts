import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { lazyPeer } from './peer.js';

/** The parts of the official MCP client SDK (1.x) the 2025 era uses. */
export interface ClientSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
  CallToolResultSchema: typeof CallToolResultSchema;
  ListToolsResultSchema: typeof ListToolsResultSchema;
}

export const SDK = '@modelcontextprotocol/sdk';

/** Loads `@modelcontextprotocol/sdk`, an optional peer dependency, on first use (see `lazyPeer`). */
export const loadClientSdk = lazyPeer<ClientSdk>(SDK, async () => {
  const [client, streamable, sse, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    CallToolResultSchema: types.CallToolResultSchema,
    ListToolsResultSchema: types.ListToolsResultSchema,
  };
});
