import { isJsonObject } from '../util/plain-object.js';
import { boundedReply } from './bounded-reply.js';
import { httpError, readRpcError } from './error-reply.js';
import { RemoteMcpError } from './errors.js';
import { currentExchange } from './exchange.js';
import { NonPublicAddressError } from './public-fetch.js';
import { eventStreamWatch, watchReply } from './replies.js';
import type { TransportKind } from './session.js';

export interface GuardedFetchOptions {
  /** The 2026-07-28 era (see below). */
  modern?: boolean;
  kind?: TransportKind;
  /** The most a reply, or one event of a stream, may hold (`maxReplyBytes` of `connectMcpServer`). */
  maxReplyBytes: number;
  /** The `fetch` to send with: the network's own, or one that keeps to public addresses. */
  fetch?: typeof globalThis.fetch;
}

/** The `fetch` the SDK's transports use for one remote server. */
export interface GuardedFetch {
  fetch: typeof fetch;
  /**
   * Settles once the notifications under way have been sent, so that closing the connection does
   * not cut them off: a cancellation sent as a call is abandoned must reach the server (MCP,
   * "Cancellation"). Never rejects.
   */
  sent(): Promise<void>;
}

/**
 * Keeps two promises the SDK alone does not:
 * - a reply to a notification is never read. MCP 2025-03-26 (transports, "Sending Messages to the
 *   Server") wants 202 with no body, but servers in the wild answer `notifications/initialized`
 *   with 200 and `{}`, `null`, an empty body or an echo, or 204 with `text/html`; whatever the
 *   status and body (a redirect aside), the transport sees an empty 204;
 * - a network failure or an HTTP error status on a request becomes a `RemoteMcpError` that names
 *   the server and says what happened, instead of the body of an HTML error page. Failures,
 *   including those of GET streams the SDK swallows, are recorded in the `Exchange` of the request
 *   whose fetch met them.
 * GET requests (the SSE streams) pass through: the transports handle their statuses themselves,
 * and a refused optional stream is no failure (MCP 2025-03-26: the server MAY answer 405). So do
 * redirects the transports asked to see (`redirect: 'manual'`): they follow those that stay within
 * the server's origin, such as `/mcp` → `/mcp/`, and report the others.
 * The reply to a request is watched to its end (`watchReply`; over the 2024-11-05 transport, the
 * event stream that carries every response, `eventStreamWatch`), and so are the GETs that resume
 * a stream, so that a response that cannot come fails its request at once.
 * In the 2026-07-28 era (`modern`), two more:
 * - an HTTP error status on a request is recorded, but its reply is passed on for the client to
 *   read: the reply to `server/discover` is how a server of the 2025 era says it does not know it;
 * - a request answered with 202 is a failure at once, not a wait for a reply that cannot come: 202
 *   acknowledges notifications and responses only (MCP 2025-03-26 transports, "Sending Messages to
 *   the Server"), and this revision has no other stream for the reply.
 */
export function guardedFetch(
  server: string,
  { modern = false, kind = 'streamable-http', maxReplyBytes, fetch = globalThis.fetch }: GuardedFetchOptions,
): GuardedFetch {
  const sending = new Set<Promise<unknown>>();
  const eventStream = kind === 'sse' ? eventStreamWatch(server) : undefined;
  const guarded: typeof fetch = async (input, init) => {
    const exchange = currentExchange();
    const record = (failure: RemoteMcpError): RemoteMcpError => {
      if (exchange) exchange.failure = failure;
      return failure;
    };
    // This fetch is the redirect followed, or a new step: either way the redirect was no failure.
    if (exchange) exchange.redirect = undefined;
    const method = init?.method === 'POST' ? requestMethod(init.body) : undefined;
    let response: Response;
    try {
      const answer = fetch(input, init);
      if (init?.method === 'POST' && method === undefined) {
        const done = (): void => void sending.delete(settled);
        const settled = answer.then(done, done);
        sending.add(settled);
      }
      response = await answer;
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      if (isGet(init)) {
        eventStream?.opening(undefined);
        if (resumes(init)) exchange?.resumptionFailed(false);
      }
      throw record(unreachable(server, error));
    }
    // Past `maxReplyBytes` the request fails at once, as do those waiting for the 2024-11-05 stream.
    response = boundedReply(response, maxReplyBytes, (what) => {
      const during = method ?? exchange?.label.method;
      const failure = tooLarge(server, what, maxReplyBytes, during);
      exchange?.fail(record(failure));
      if (isGet(init)) eventStream?.fail(failure);
      return failure;
    });
    // RFC 9110 §15.4.8: a 307 (or 308) keeps the method and the body, so the transport repeats
    // the request at the new URL; the redirect is neither a failure nor the reply.
    if (init?.redirect === 'manual' && isRedirect(response.status)) {
      if (exchange) exchange.redirect = unfollowed(server, response.status);
      return response;
    }
    if (init?.method !== 'POST') {
      if (isGet(init)) {
        eventStream?.opening(response);
        // A transport gives a resumption up after a 405, and retries after other statuses.
        if (resumes(init) && !response.ok) exchange?.resumptionFailed(response.status === 405);
      }
      if (response.status >= 400 && response.status !== 405) record(httpError(server, response));
      return response;
    }
    if (method === undefined) {
      await response.body?.cancel().catch(() => {});
      return new Response(null, { status: 204 });
    }
    if (!response.ok) {
      // The JSON-RPC error of the reply, if it is one, says why; in the 2026-07-28 era the client
      // reads the reply too, so a copy is read here.
      const failure = record(
        httpError(server, response, await readRpcError(modern ? response.clone() : response)),
      );
      if (modern) return response;
      await response.body?.cancel().catch(() => {});
      throw failure;
    }
    if (modern && response.status === 202) {
      await response.body?.cancel().catch(() => {});
      throw record(
        new RemoteMcpError(server, 'invalid-reply', `answered ${method} with HTTP 202 and no reply`),
      );
    }
    if (!exchange?.watched) return response;
    if (eventStream) {
      eventStream.waiting(exchange);
      return response;
    }
    return watchReply(response, exchange);
  };
  return {
    fetch: guarded,
    async sent() {
      // A transport prepares a message's headers before it fetches: let that happen first.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(sending);
    },
  };
}

/**
 * The method of the request a POST carries (`'(unknown)'` when the body is not one message with
 * a method); `undefined` when it carries a notification, whose reply is never read.
 */
function requestMethod(body: unknown): string | undefined {
  let message: unknown;
  try {
    message = typeof body === 'string' ? JSON.parse(body) : undefined;
  } catch {
    message = undefined;
  }
  if (!isJsonObject(message)) return '(unknown)';
  if (!('id' in message)) return undefined;
  return typeof message.method === 'string' ? message.method : '(unknown)';
}

/** EventSource leaves the method out. */
const isGet = (init: RequestInit | undefined) => (init?.method ?? 'GET') === 'GET';

/** A GET that resumes a stream after its last event (MCP 2025-06-18 transports, "Resumability and Redelivery"). */
const resumes = (init: RequestInit | undefined) => new Headers(init?.headers).has('last-event-id');

const isRedirect = (status: number) => status >= 300 && status < 400;

/** The SDKs follow a redirect only within the server's origin, and a POST's only if it keeps the method. */
const unfollowed = (server: string, status: number) =>
  new RemoteMcpError(server, 'http', `answered HTTP ${status}, a redirect the client does not follow`, {
    status,
  });

function unreachable(server: string, error: unknown): RemoteMcpError {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof NonPublicAddressError) {
    return new RemoteMcpError(
      server,
      'unreachable',
      `was refused before connecting: ${cause.message} (allowPrivateNetworks, isAllowedUrl)`,
    );
  }
  const code = (cause as { code?: unknown } | null)?.code;
  const detail = typeof code === 'string' ? ` (${code})` : '';
  return new RemoteMcpError(server, 'unreachable', `could not be reached${detail}`);
}

function tooLarge(server: string, what: 'reply' | 'event', limit: number, method: string | undefined) {
  const part = what === 'event' ? 'an event' : 'a reply';
  const during = method === undefined ? '' : ` during ${method}`;
  return new RemoteMcpError(
    server,
    'invalid-reply',
    `sent ${part} of more than ${limit} bytes${during}, more than the client reads (maxReplyBytes)`,
  );
}
