import { ConfigurationError } from '../errors/package-errors.js';
import { parseFactoryOptions } from '../util/factory-options.js';
import { withDeadline } from './deadline.js';
import { openEraSession } from './era.js';
import { describeServer } from './errors.js';
import { type ConnectMcpServerOptions, connectOptionsSchema, type ParsedConnectOptions } from './options.js';
import { publicFetch } from './public-fetch.js';
import { readToolResult } from './result.js';
import type { Session } from './session.js';
import { listAllTools } from './tool-list.js';
import type { CallToolOptions, McpServerConnection, RemoteTool } from './types.js';

export type { ConnectMcpServerOptions } from './options.js';

/**
 * Connects to a remote MCP server over HTTP and opens a session with it, so a host's apps can list
 * and call its tools. Built on the official MCP client SDKs, optional peer dependencies that only
 * this function loads: `@modelcontextprotocol/sdk` for the 2025 era (the `initialize` handshake),
 * `@modelcontextprotocol/client` for the 2026-07-28 era (see the `protocol` option). Every failure
 * is a `RemoteMcpError` naming the server, within `timeoutMs`: nothing hangs.
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
  // The network's own `fetch`, unless the connection must keep to public addresses.
  const fetch = config.allowPrivateNetworks ? undefined : publicFetch(config.isAllowedUrl);
  const session = await openEraSession(target, server, { ...config, headers, fetch });
  return openConnection(session, server, config);
}

/**
 * `fetch` refuses URLs with credentials; they become HTTP Basic authentication, as curl and
 * browsers send them (RFC 9110 §11.2), unless `headers` has an `Authorization` of its own.
 */
function withUrlCredentials(url: URL, headers: Record<string, string>): Record<string, string> {
  if (!url.username && !url.password) return headers;
  const user = urlCredentials(url);
  if (user === undefined) {
    // Neither the credentials nor the URL are quoted: they are secrets.
    throw new ConfigurationError(
      'invalid_url',
      'connectMcpServer: the user name or password in the server URL is not valid percent-encoding',
    );
  }
  url.username = '';
  url.password = '';
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return headers;
  return { ...headers, Authorization: `Basic ${Buffer.from(user).toString('base64')}` };
}

/**
 * The `user:password` of a URL, decoded (RFC 3986 §3.2.1 userinfo is percent-encoded UTF-8);
 * `undefined` when its percent-encoding is not valid.
 */
export function urlCredentials(url: URL): string | undefined {
  try {
    return `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  } catch {
    return undefined;
  }
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

function openConnection(session: Session, server: string, config: ParsedConnectOptions): McpServerConnection {
  let tools: Map<string, RemoteTool> | undefined;
  let closing: Promise<void> | undefined;

  async function listTools(signal?: AbortSignal): Promise<RemoteTool[]> {
    const listed = await listAllTools(
      session,
      server,
      { timeout: config.timeoutMs, signal },
      config.maxTools,
    );
    tools = new Map(listed.map((tool) => [tool.name, tool]));
    return listed;
  }

  return {
    transport: session.kind,
    protocolVersion: session.protocolVersion,
    serverInfo: session.serverInfo,
    listTools: () => listTools(),
    async callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}) {
      const { signal } = options;
      signal?.throwIfAborted();
      let raw: Record<string, unknown>;
      try {
        // The listing is part of the call: aborting the call stops it too.
        if (!tools) await listTools(signal);
        raw = await session.callTool(name, args, tools?.get(name), {
          timeout: config.callTimeoutMs,
          ...(signal ? { signal } : {}),
          // Always asked for, so servers that report progress can; passed on when the caller listens.
          onprogress: ({ progress, total, message }) => {
            options.onProgress?.({
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message }),
            });
          },
        });
      } catch (error) {
        // The caller's own cancellation is theirs, not the server's failure: reject as `fetch` does.
        if (signal?.aborted) throw signal.reason;
        throw error;
      }
      return readToolResult(raw, tools?.get(name));
    },
    close() {
      closing ??= closeSession(session, config.timeoutMs);
      return closing;
    },
  };
}

/**
 * MCP 2025-03-26 transports, "Session Management": a client that no longer needs a session SHOULD
 * end it with DELETE. Notifications under way go first: a call abandoned just before is cancelled
 * on the server, not cut off by the closing (MCP, "Cancellation"). Best effort, bounded by
 * `timeoutMs`; the connection closes either way.
 */
async function closeSession(session: Session, timeoutMs: number): Promise<void> {
  const ending = session.sent().then(() => session.terminate());
  await withDeadline(ending, timeoutMs, () => new Error('no answer to DELETE')).catch(() => {});
  await session.close().catch(() => {});
}
