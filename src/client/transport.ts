import { PACKAGE_VERSION } from '../versions.js';
import { type RequestLabel, timedOut } from './classify.js';
import { withDeadline } from './deadline.js';
import { RemoteMcpError } from './errors.js';
import { type ExchangeOptions, exchange } from './exchange.js';
import type { ParsedConnectOptions } from './options.js';
import type { Session, TransportKind } from './session.js';

export const CLIENT_INFO = { name: 'express-app-mcp', version: PACKAGE_VERSION };

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

/** Opens a session with the first of `kinds` that works; `open` connects and initializes with one. */
export async function openSession(
  open: (kind: TransportKind) => Promise<Session>,
  kinds: TransportKind[],
  server: string,
): Promise<Session> {
  const [first, fallback] = kinds;
  try {
    return await open(first!);
  } catch (error) {
    const fallsBack =
      fallback &&
      error instanceof RemoteMcpError &&
      error.kind === 'http' &&
      FALLBACK_STATUSES.has(error.status!);
    if (!fallsBack) throw error;
    try {
      return await open(fallback);
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

/**
 * Runs a client's `connect` within `timeoutMs`, as an exchange of its own: the SDKs time their
 * requests, not the opening of an SSE stream, so the deadline covers both. On failure the client is
 * closed and the error is a `RemoteMcpError`; `label.method` is `initialize`, or `server/discover`
 * in the 2026-07-28 era. Its replies are not watched for their end: `connect` goes on after the
 * response (`notifications/initialized`), so its settling cannot tell whether the response came.
 */
export async function handshake(
  connect: (own: ExchangeOptions) => Promise<void>,
  client: { close(): Promise<void> },
  label: RequestLabel,
): Promise<void> {
  try {
    await exchange(
      label,
      undefined,
      (own) => withDeadline(connect(own), label.timeoutMs, () => timedOut(label)),
      { watched: false },
    );
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}
