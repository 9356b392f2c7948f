import { isJsonObject } from '../plain-object.js';
import { RemoteMcpError } from './errors.js';

/** The `fetch` the SDK's transports use for one remote server, and what it saw go wrong. */
export interface GuardedFetch {
  fetch: typeof fetch;
  /** The last network failure or HTTP error status, including those of GET streams the SDK swallows. */
  lastFailure(): RemoteMcpError | undefined;
}

/**
 * Keeps two promises the SDK alone does not:
 * - a reply to a notification is never read. MCP 2025-03-26 (transports, "Sending Messages to the
 *   Server") wants 202 with no body, but servers in the wild answer `notifications/initialized`
 *   with 200 and `{}`, `null`, an empty body or an echo, or 204 with `text/html`; whatever the
 *   status and body, the transport sees an empty 204;
 * - a network failure or an HTTP error status on a request becomes a `RemoteMcpError` that names
 *   the server and says what happened, instead of the body of an HTML error page.
 * GET requests (the SSE streams) pass through: the transports handle their statuses themselves,
 * and a refused optional stream is no failure (MCP 2025-03-26: the server MAY answer 405).
 */
export function guardedFetch(server: string): GuardedFetch {
  let last: RemoteMcpError | undefined;
  const guarded: typeof fetch = async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      last = unreachable(server, error);
      throw last;
    }
    if (init?.method !== 'POST') {
      if (response.status >= 400 && response.status !== 405) last = httpError(server, response);
      return response;
    }
    if (isNotification(init.body)) {
      await response.body?.cancel().catch(() => {});
      return new Response(null, { status: 204 });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      last = httpError(server, response);
      throw last;
    }
    return response;
  };
  return { fetch: guarded, lastFailure: () => last };
}

function isNotification(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as unknown;
    return isJsonObject(message) && !('id' in message);
  } catch {
    return false;
  }
}

function unreachable(server: string, error: unknown): RemoteMcpError {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  const detail = typeof code === 'string' ? ` (${code})` : '';
  return new RemoteMcpError(server, 'unreachable', `could not be reached${detail}`);
}

function httpError(server: string, response: Response): RemoteMcpError {
  const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  const page = type === 'text/html' ? ' with an HTML page' : '';
  return new RemoteMcpError(server, 'http', `answered HTTP ${response.status}${page}`, {
    status: response.status,
  });
}
