/**
 * The client direction in the example: the Remote Text Stats app runs by calling the `Text_Stats`
 * tool of a remote MCP server, found through a stored tool provider. Here that provider is the
 * example's own Text Stats server, stored at start under the name below; in a real backend it would
 * be any MCP server an admin added in the tool provider console (`/console/api/tool-providers`).
 */
import {
  AppRunError,
  connectMcpServer,
  connectToolProvider,
  RemoteMcpError,
  ToolProviderExistsError,
} from 'express-app-mcp';
import { TENANT_ID } from './apps.js';

export const REMOTE_STATS_APP_ID = 'remote-stats';
export const TEXT_STATS_PROVIDER = 'Text Stats (this server)';
const REMOTE_TOOL = 'Text_Stats';

/**
 * The `runApp` of Remote Text Stats: one connection per run, closed when the run ends; a failure
 * of the remote server is an error result whose text the client reads.
 * @param {import('express-app-mcp').ToolProviderStore} providers
 * @param {import('express-app-mcp').ConnectToolProviderOptions} options which private addresses the provider may reach
 * @returns {(run: import('express-app-mcp').AppRun) => Promise<import('express-app-mcp').AppResult>}
 */
export function remoteStatsRunner(providers, options) {
  return async (run) => {
    const provider = await providers.getProviderByName(TENANT_ID, TEXT_STATS_PROVIDER);
    if (!provider) {
      throw new AppRunError(`there is no tool provider named "${TEXT_STATS_PROVIDER}" to call`);
    }
    let connection;
    try {
      connection = await connectToolProvider(provider, options);
      const result = await connection.callTool(
        REMOTE_TOOL,
        { text: run.inputs.text },
        { signal: run.signal },
      );
      if (result.isError) throw new AppRunError(result.text);
      return { outputs: result.variables };
    } catch (error) {
      // The reason only: the server's URL is a secret (it holds the Text Stats server code).
      if (error instanceof RemoteMcpError)
        throw new AppRunError(`the remote MCP server failed: ${error.reason}`);
      throw error;
    } finally {
      await connection?.close();
    }
  };
}

/**
 * Stores the example's own Text Stats server as a tool provider, with its tools, or points the
 * stored one at `url` when the example now listens elsewhere (another port). Call it once the HTTP
 * server listens: listing the tools connects to it.
 * @param {import('express-app-mcp').ToolProviderStore} providers
 * @param {string} url the Text Stats server's MCP URL
 */
export async function seedTextStatsProvider(providers, url) {
  const existing = await providers.getProviderByName(TENANT_ID, TEXT_STATS_PROVIDER);
  if (existing?.serverUrl === url) return existing;
  const connection = await connectMcpServer(url);
  let tools;
  try {
    tools = await connection.listTools();
  } finally {
    await connection.close();
  }
  if (existing) return providers.updateProvider(TENANT_ID, existing.id, { serverUrl: url, tools });
  try {
    return await providers.createProvider({
      tenantId: TENANT_ID,
      name: TEXT_STATS_PROVIDER,
      serverUrl: url,
      tools,
    });
  } catch (error) {
    // Another instance on the same database stored it first.
    if (!(error instanceof ToolProviderExistsError)) throw error;
    return providers.getProviderByName(TENANT_ID, TEXT_STATS_PROVIDER);
  }
}
