import { connectMcpServer } from '../../client/connect.js';
import type { ConnectMcpServerOptions } from '../../client/options.js';
import type { McpServerConnection } from '../../client/types.js';
import type { ToolProvider } from '../../store/providers/types.js';

/**
 * Options of `connectToolProvider`, as for `connectMcpServer`, except that `allowPrivateNetworks`
 * defaults to `false`: a provider's URL is chosen by a tenant admin, not by the host, so it may
 * not reach loopback or private addresses unless `isAllowedUrl` permits them (docs/security.md).
 */
export type ConnectToolProviderOptions = Pick<
  ConnectMcpServerOptions,
  'maxReplyBytes' | 'maxTools' | 'allowPrivateNetworks' | 'isAllowedUrl'
>;

/** The names of those options (docs/options.md lists them); the rest come from the provider. */
export const TOOL_PROVIDER_OPTIONS = [
  'maxReplyBytes',
  'maxTools',
  'allowPrivateNetworks',
  'isAllowedUrl',
] as const satisfies readonly (keyof ConnectToolProviderOptions)[];

/**
 * Connects to a stored provider's server with its URL, headers and timeouts, on public addresses
 * only unless `options` allow more.
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
    allowPrivateNetworks: false,
    ...options,
    headers: provider.headers,
    timeoutMs: provider.timeoutMs,
    callTimeoutMs: provider.callTimeoutMs,
  });
}
