import { RECONNECTION, sessionRequest } from './exchange.js';
import { guardedFetch } from './fetch.js';
import type { ParsedConnectOptions } from './options.js';
import type { ClientSdk } from './sdk.js';
import type { Session, TransportKind } from './session.js';
import { CLIENT_INFO, handshake } from './transport.js';

/**
 * Opens sessions of the 2025 era (the `initialize` handshake, revisions 2024-11-05 to 2025-11-25)
 * with the official client SDK 1.x, over the transport it is given.
 */
export function sdkSessions(
  sdk: ClientSdk,
  url: URL,
  server: string,
  options: ParsedConnectOptions,
): (kind: TransportKind) => Promise<Session> {
  return async (kind) => {
    const guarded = guardedFetch(server, {
      kind,
      maxReplyBytes: options.maxReplyBytes,
      fetch: options.fetch,
    });
    const transportOptions = { requestInit: { headers: options.headers }, fetch: guarded.fetch };
    const transport =
      kind === 'sse'
        ? new sdk.SSEClientTransport(url, transportOptions)
        : new sdk.StreamableHTTPClientTransport(url, {
            ...transportOptions,
            reconnectionOptions: RECONNECTION,
          });
    // The client hands the transport the version `initialize` settled on, and keeps it to itself.
    let protocolVersion: string | undefined;
    const setProtocolVersion = transport.setProtocolVersion.bind(transport);
    transport.setProtocolVersion = (version) => {
      protocolVersion = version;
      setProtocolVersion(version);
    };
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    // Transport trouble outside a request (a refused optional stream) is reported here; requests
    // get their own errors, so nothing more is needed, and nothing becomes an unhandled rejection.
    client.onerror = () => {};
    await handshake((own) => client.connect(transport, { timeout: options.timeoutMs, ...own }), client, {
      server,
      method: 'initialize',
      timeoutMs: options.timeoutMs,
    });
    return {
      kind,
      protocolVersion,
      serverInfo: client.getServerVersion(),
      // Plain requests: `client.listTools` would also compile every output schema into a validator,
      // and one it cannot compile would fail the whole listing; `client.callTool` checks the result
      // against the tool's output schema, while a result that strays from it is read all the same,
      // as Dify reads it (README, "Calling remote MCP servers from your apps").
      listTools: (cursor, limits) =>
        sessionRequest(server, 'tools/list', limits, (options) =>
          client.request(
            { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
            sdk.ListToolsResultSchema,
            options,
          ),
        ),
      callTool: (name, args, _tool, limits) =>
        sessionRequest(server, 'tools/call', limits, (options) =>
          client.request(
            { method: 'tools/call', params: { name, arguments: args } },
            sdk.CallToolResultSchema,
            options,
          ),
        ),
      terminate: async () => {
        if ('terminateSession' in transport) await transport.terminateSession();
      },
      close: () => client.close(),
      sent: guarded.sent,
    };
  };
}
