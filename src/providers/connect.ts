import { connectMcpServer } from '../client/connect.js';
import type { ConnectMcpServerOptions } from '../client/options.js';
import type { McpServerConnection } from '../client/types.js';
import type { ToolProvider } from './types.js';

/** Options of `connectToolProvider`: the bounds on what the server may send (see `connectMcpServer`). */
export type ConnectToolProviderOptions = Pick<ConnectMcpServerOptions, 'maxReplyBytes' | 'maxTools'>;

/**
 * Connects to a stored provider's server with its URL, headers and timeouts.
 *
 * @example
 * ```ts
 * const provider = await providers.getProviderByName(tenantId, 'Search');
 * const remote = await connectToolProvider(provider);
 * try {
 *   const result = await remote.callTool('search', { query: 'mcp' }, { signal: run.signal });
 * } finally {
 *   await remote.close();
 * }
 * ```
 */
export function connectToolProvider(
  provider: Pick<ToolProvider, 'serverUrl' | 'headers' | 'timeoutMs' | 'callTimeoutMs'>,
  options: ConnectToolProviderOptions = {},
): Promise<McpServerConnection> {
  return connectMcpServer(provider.serverUrl, {
    ...options,
    headers: provider.headers,
    timeoutMs: provider.timeoutMs,
    callTimeoutMs: provider.callTimeoutMs,
  });
}
