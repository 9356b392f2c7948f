import type { Tool } from '@modelcontextprotocol/client';
import { RECONNECTION, sessionRequest } from './exchange.js';
import { guardedFetch } from './fetch.js';
import type { ModernClientSdk } from './modern-sdk.js';
import type { ParsedConnectOptions } from './options.js';
import { MODERN_VERSION, type Session } from './session.js';
import { CLIENT_INFO, handshake } from './transport.js';

/**
 * Opens a session of the 2026-07-28 era with the official client package 2.x: `server/discover`
 * instead of a handshake, then stateless requests that each carry the version and the client's
 * capabilities (README, "Protocol versions"). Streamable HTTP only: that revision has no other
 * HTTP transport. A server that does not offer 2026-07-28 fails to connect.
 */
export async function openModernSession(
  sdk: ModernClientSdk,
  url: URL,
  server: string,
  options: ParsedConnectOptions,
): Promise<Session> {
  const guarded = guardedFetch(server, {
    modern: true,
    maxReplyBytes: options.maxReplyBytes,
    fetch: options.fetch,
  });
  const transport = new sdk.StreamableHTTPClientTransport(url, {
    requestInit: { headers: options.headers },
    fetch: guarded.fetch,
    reconnectionOptions: RECONNECTION,
  });
  const client = new sdk.Client(CLIENT_INFO, {
    capabilities: {},
    versionNegotiation: { mode: { pin: MODERN_VERSION } },
  });
  // As in the 2025 era: requests get their own errors, nothing else may become an unhandled rejection.
  client.onerror = () => {};
  await handshake((own) => client.connect(transport, { timeout: options.timeoutMs, ...own }), client, {
    server,
    method: 'server/discover',
    timeoutMs: options.timeoutMs,
  });
  return {
    kind: 'streamable-http',
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion(),
    // A plain request, not `client.listTools`, for the reason given for the 2025 era.
    listTools: (cursor, limits) =>
      sessionRequest(server, 'tools/list', limits, (options) =>
        client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, options),
      ),
    // `client.callTool` copies the arguments a tool declares with `x-mcp-header` into `Mcp-Param-*`
    // headers, as the 2026-07-28 revision asks, from the listing handed over as `toolDefinition`.
    // Its output schema is left out, so the result is not checked against it and is read all the
    // same (README, "Calling remote MCP servers from your apps").
    callTool: (name, args, tool, limits) => {
      const toolDefinition = tool && {
        name: tool.name,
        inputSchema: tool.inputSchema as Tool['inputSchema'],
      };
      return sessionRequest(
        server,
        'tools/call',
        limits,
        async (options) =>
          (await client.callTool(
            { name, arguments: args },
            toolDefinition ? { ...options, toolDefinition } : options,
          )) as Record<string, unknown>,
      );
    },
    terminate: () => transport.terminateSession(),
    close: () => client.close(),
    sent: guarded.sent,
  };
}
