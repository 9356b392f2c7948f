import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PACKAGE_VERSION } from '../version.js';
import { toRemoteMcpError } from './classify.js';
import { withDeadline } from './deadline.js';
import { RemoteMcpError } from './errors.js';
import { guardedFetch } from './fetch.js';
import type { ParsedConnectOptions } from './options.js';
import type { ClientSdk } from './sdk.js';

export type TransportKind = 'streamable-http' | 'sse';

/** An initialized session with a remote server. */
export interface Session {
  kind: TransportKind;
  client: Client;
  transport: Transport;
  /** What the transport's fetch last saw go wrong, for errors the SDK reports in its own words. */
  lastFailure(): RemoteMcpError | undefined;
}

const CLIENT_INFO = { name: 'express-app-mcp', version: PACKAGE_VERSION };

/**
 * MCP 2025-03-26 transports, "Backwards Compatibility": a client that supports both transports
 * POSTs `initialize` first and falls back to the old HTTP+SSE transport when that fails with a 4xx
 * status such as 405 or 404; 400 counts too, since servers of the old transport often answer an
 * unexpected POST that way.
 */
const FALLBACK_STATUSES = new Set([400, 404, 405]);

/** The transports to try, in order: the path decides when it ends in `/mcp` or `/sse`. */
export function transportsFor(url: URL, choice: ParsedConnectOptions['transport']): TransportKind[] {
  if (choice !== 'auto') return [choice];
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/mcp')) return ['streamable-http'];
  if (path.endsWith('/sse')) return ['sse'];
  return ['streamable-http', 'sse'];
}

/** Connects and initializes with the first transport that works. */
export async function openSession(
  sdk: ClientSdk,
  url: URL,
  server: string,
  options: ParsedConnectOptions,
): Promise<Session> {
  const [first, fallback] = transportsFor(url, options.transport);
  try {
    return await openWith(sdk, first!, url, server, options);
  } catch (error) {
    const fallsBack =
      fallback &&
      error instanceof RemoteMcpError &&
      error.kind === 'http' &&
      FALLBACK_STATUSES.has(error.status!);
    if (!fallsBack) throw error;
    try {
      return await openWith(sdk, fallback, url, server, options);
    } catch (second) {
      if (!(second instanceof RemoteMcpError)) throw second;
      // Both failed: say what each transport got, so "wrong URL" is told apart from "server down".
      throw new RemoteMcpError(
        server,
        second.kind,
        `${error.reason} over Streamable HTTP, and ${second.reason} over HTTP+SSE`,
        { status: second.status, rpcCode: second.rpcCode, data: second.data },
      );
    }
  }
}

async function openWith(
  sdk: ClientSdk,
  kind: TransportKind,
  url: URL,
  server: string,
  options: ParsedConnectOptions,
): Promise<Session> {
  const guarded = guardedFetch(server);
  const transportOptions = { requestInit: { headers: options.headers }, fetch: guarded.fetch };
  const transport =
    kind === 'sse'
      ? new sdk.SSEClientTransport(url, transportOptions)
      : new sdk.StreamableHTTPClientTransport(url, transportOptions);
  const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
  // Transport trouble outside a request (a refused optional stream) is reported here; requests
  // get their own errors, so nothing more is needed, and nothing becomes an unhandled rejection.
  client.onerror = () => {};
  const exchange = { server, method: 'initialize', timeoutMs: options.timeoutMs };
  try {
    // The SDK times the `initialize` request, not the opening of an SSE stream: the deadline covers both.
    await withDeadline(
      client.connect(transport, { timeout: options.timeoutMs }),
      options.timeoutMs,
      () => new RemoteMcpError(server, 'timeout', `no answer to initialize within ${options.timeoutMs} ms`),
    );
  } catch (error) {
    await client.close().catch(() => {});
    throw toRemoteMcpError(error, { ...exchange, lastFailure: guarded.lastFailure() });
  }
  return { kind, client, transport, lastFailure: guarded.lastFailure };
}
