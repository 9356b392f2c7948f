import { connectMcpServer } from '../../client/connect.js';
import type { McpServerConnection } from '../../client/types.js';
import type { ToolProvider } from '../../store/providers/types.js';

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
): Promise<McpServerConnection> {
  return connectMcpServer(provider.serverUrl, {
    headers: provider.headers,
    timeoutMs: provider.timeoutMs,
    callTimeoutMs: provider.callTimeoutMs,
  });
}
