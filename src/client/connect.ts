import { ConfigurationError } from '../errors.js';
import { parseFactoryOptions } from '../factory-options.js';
import { toRemoteMcpError } from './classify.js';
import { withDeadline } from './deadline.js';
import { describeServer } from './errors.js';
import { type ConnectMcpServerOptions, connectOptionsSchema, type ParsedConnectOptions } from './options.js';
import { readToolResult } from './result.js';
import { type ClientSdk, loadClientSdk } from './sdk.js';
import { openSession, type Session } from './transport.js';
import type { CallToolOptions, McpServerConnection, RemoteTool } from './types.js';

export type { ConnectMcpServerOptions } from './options.js';

/** A server that pages `tools/list` forever (the same cursor again and again) must not hang us. */
const MAX_TOOL_PAGES = 100;

/**
 * Connects to a remote MCP server over HTTP and initializes a session with it, so a host's apps can
 * list and call its tools. Built on the official MCP client SDK (`@modelcontextprotocol/sdk`, an
 * optional peer dependency that only this function loads). Every failure is a `RemoteMcpError`
 * naming the server, within `timeoutMs`: nothing hangs.
 *
 * @example
 * ```ts
 * const remote = await connectMcpServer('https://tools.example.com/mcp', { headers: { Authorization: 'Bearer …' } });
 * try {
 *   const out = await remote.callTool('search', { query: 'mcp' });
 * } finally {
 *   await remote.close();
 * }
 * ```
 */
export async function connectMcpServer(
  url: string | URL,
  options?: ConnectMcpServerOptions,
): Promise<McpServerConnection> {
  const config = parseFactoryOptions(connectOptionsSchema, options ?? {}, 'connectMcpServer');
  const target = parseServerUrl(url);
  const server = describeServer(target);
  const headers = withUrlCredentials(target, config.headers);
  const sdk = await loadClientSdk();
  const session = await openSession(sdk, target, server, { ...config, headers });
  return openConnection(sdk, session, server, config);
}

/**
 * `fetch` refuses URLs with credentials; they become HTTP Basic authentication, as curl and
 * browsers send them (RFC 9110 §11.2), unless `headers` has an `Authorization` of its own.
 */
function withUrlCredentials(url: URL, headers: Record<string, string>): Record<string, string> {
  if (!url.username && !url.password) return headers;
  const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return headers;
  return { ...headers, Authorization: `Basic ${Buffer.from(user).toString('base64')}` };
}

/** An http(s) URL; anything else is a programming error of the caller. */
export function parseServerUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigurationError('invalid_url', 'connectMcpServer: the server URL is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigurationError(
      'invalid_url',
      'connectMcpServer: the server URL must be an http or https URL',
    );
  }
  return parsed;
}

function openConnection(
  sdk: ClientSdk,
  session: Session,
  server: string,
  config: ParsedConnectOptions,
): McpServerConnection {
  const { client } = session;
  let tools: Map<string, RemoteTool> | undefined;
  let closing: Promise<void> | undefined;

  const failure = (error: unknown, method: string, timeoutMs: number) =>
    toRemoteMcpError(error, { server, method, timeoutMs, lastFailure: session.lastFailure() });

  async function listTools(): Promise<RemoteTool[]> {
    const listed: RemoteTool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        // Plain requests, like tools/call below: `client.listTools` would also compile every output
        // schema into a validator, and one it cannot compile would fail the whole listing.
        const result = await client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          sdk.ListToolsResultSchema,
          { timeout: config.timeoutMs },
        );
        listed.push(...result.tools.map(toRemoteTool));
        cursor = result.nextCursor;
        if (!cursor) break;
      }
    } catch (error) {
      throw failure(error, 'tools/list', config.timeoutMs);
    }
    tools = new Map(listed.map((tool) => [tool.name, tool]));
    return listed;
  }

  return {
    transport: session.kind,
    serverInfo: client.getServerVersion(),
    listTools,
    async callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}) {
      options.signal?.throwIfAborted();
      if (!tools) await listTools();
      let raw: Record<string, unknown>;
      try {
        // Not `client.callTool`, which checks the result against the tool's output schema: a result
        // that strays from it is read all the same, as Dify reads it.
        raw = await client.request(
          { method: 'tools/call', params: { name, arguments: args } },
          sdk.CallToolResultSchema,
          {
            timeout: config.callTimeoutMs,
            ...(options.signal ? { signal: options.signal } : {}),
            // Always asked for, so servers that report progress can; passed on when the caller listens.
            onprogress: ({ progress, total, message }) => {
              options.onProgress?.({
                progress,
                ...(total === undefined ? {} : { total }),
                ...(message === undefined ? {} : { message }),
              });
            },
          },
        );
      } catch (error) {
        // The caller's own cancellation is theirs, not the server's failure: reject as `fetch` does.
        if (options.signal?.aborted) throw options.signal.reason;
        throw failure(error, 'tools/call', config.callTimeoutMs);
      }
      return readToolResult(raw, tools?.get(name));
    },
    close() {
      closing ??= closeSession(session, config.timeoutMs);
      return closing;
    },
  };
}

function toRemoteTool(tool: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
}): RemoteTool {
  const remote: RemoteTool = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) remote.title = tool.title;
  if (tool.description !== undefined) remote.description = tool.description;
  if (tool.outputSchema !== undefined) remote.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) remote.annotations = tool.annotations;
  return remote;
}

/**
 * MCP 2025-03-26 transports, "Session Management": a client that no longer needs a session SHOULD
 * end it with DELETE. Best effort, bounded by `timeoutMs`; the connection closes either way.
 */
async function closeSession(session: Session, timeoutMs: number): Promise<void> {
  const { transport } = session;
  if ('terminateSession' in transport && typeof transport.terminateSession === 'function') {
    const terminate = (transport.terminateSession as () => Promise<void>).call(transport);
    await withDeadline(terminate, timeoutMs, () => new Error('no answer to DELETE')).catch(() => {});
  }
  await session.client.close().catch(() => {});
}
