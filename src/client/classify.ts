import { RemoteMcpError } from './errors.js';
import { MODERN_VERSION } from './session.js';

/** The SDK's own codes for its timeouts and a closed connection (`ErrorCode` in its `types.ts`). */
const SDK_CONNECTION_CLOSED = -32000;
const SDK_REQUEST_TIMEOUT = -32001;

/** What a request is, for its error messages. */
export interface RequestLabel {
  /** The URL naming the server (see `describeServer`). */
  server: string;
  /** The MCP method under way: `initialize` or `server/discover`, `tools/list`, `tools/call`. */
  method: string;
  /** The time it was allowed, for the timeout message. */
  timeoutMs: number;
}

/** A request that failed, and what its fetches saw. */
interface FailedRequest extends RequestLabel {
  /** What the request's fetches saw go wrong, which the SDK may have reported in its own words. */
  lastFailure?: RemoteMcpError | undefined;
}

/**
 * Turns whatever the SDK threw (1.x or the client package 2.x) into a `RemoteMcpError` that names
 * the server and says, in a few words, what happened. An HTML error page or a garbage body is
 * described, never quoted.
 */
export function toRemoteMcpError(error: unknown, request: FailedRequest): RemoteMcpError {
  if (error instanceof RemoteMcpError) return error;
  const { server, method, lastFailure } = request;
  const fail = (
    kind: RemoteMcpError['kind'],
    reason: string,
    details?: ConstructorParameters<typeof RemoteMcpError>[3],
  ) => new RemoteMcpError(server, kind, reason, details);
  const { name, code, message, data } = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  const text = typeof message === 'string' ? message : String(error);

  const refused = (serverMessage: string, rpcCode: number) =>
    fail('rpc', `refused ${method}: ${serverMessage} (JSON-RPC error ${rpcCode})`, { rpcCode, data });

  if (name === 'McpError' && typeof code === 'number') {
    if (code === SDK_REQUEST_TIMEOUT && isSdkTimeout(data)) return timedOut(request);
    if (code === SDK_CONNECTION_CLOSED && !isServerError(error)) return lastFailure ?? closed(request);
    return refused(text.replace(/^MCP error -?\d+: /, ''), code);
  }
  if (name === 'ProtocolError' && typeof code === 'number') return refused(text, code);
  if ((name === 'SdkError' || name === 'SdkHttpError') && typeof code === 'string') {
    const read = readSdkError(code, name, data, request);
    if (read) return read;
  }
  if (name === 'SseError') {
    if (lastFailure) return lastFailure;
    if (typeof code === 'number') return fail('http', `answered HTTP ${code}`, { status: code });
    return fail('closed', `closed the event stream during ${method}`);
  }
  if (lastFailure) return lastFailure;
  if (error instanceof SyntaxError)
    return fail('invalid-reply', `answered ${method} with a body that is not JSON`);
  if (name === 'ZodError' || Array.isArray((error as { issues?: unknown }).issues)) return offSchema(request);
  const contentType = /Unexpected content type: (.*)$/.exec(text)?.[1];
  if (contentType !== undefined) {
    return fail(
      'invalid-reply',
      `answered ${method} with content type ${contentType || '(none)'}, neither JSON nor an event stream`,
    );
  }
  const version = /^Server's protocol version is not supported: (.*)$/.exec(text)?.[1];
  if (version !== undefined)
    return fail('invalid-reply', `speaks protocol version ${version}, which the client does not support`);
  return fail('invalid-reply', `failed during ${method}: ${text}`);
}

/**
 * The client package's own errors (`SdkError`, with a string code), where they say more than the
 * failure the fetch saw; `undefined` for the rest, which are read like the 1.x SDK's.
 */
function readSdkError(
  code: string,
  name: string,
  data: unknown,
  request: FailedRequest,
): RemoteMcpError | undefined {
  const { server, lastFailure } = request;
  switch (code) {
    case 'REQUEST_TIMEOUT':
      return timedOut(request);
    case 'CONNECTION_CLOSED':
      return lastFailure ?? closed(request);
    case 'INVALID_RESULT':
      return offSchema(request);
    case 'ERA_NEGOTIATION_FAILED': {
      // The probe's own failure (the network, a body that is not JSON…) is read as any other.
      const cause = (data as { cause?: unknown } | undefined)?.cause;
      if (cause !== undefined) return toRemoteMcpError(cause, request);
      // An HTTP error status is reported as such, as in the 2025 era: a 404 is a wrong URL there too.
      if (name === 'SdkHttpError' || lastFailure) break;
      return new RemoteMcpError(server, 'invalid-reply', `does not offer protocol version ${MODERN_VERSION}`);
    }
  }
  const status = (data as { status?: unknown } | undefined)?.status;
  if (name === 'SdkHttpError' && !lastFailure && typeof status === 'number') {
    return new RemoteMcpError(server, 'http', `answered HTTP ${status}`, { status });
  }
  return undefined;
}

/** No answer within the time allowed. */
export const timedOut = ({ server, method, timeoutMs }: RequestLabel) =>
  new RemoteMcpError(server, 'timeout', `no answer to ${method} within ${timeoutMs} ms`);

const closed = ({ server, method }: FailedRequest) =>
  new RemoteMcpError(server, 'closed', `closed the connection during ${method}`);

const offSchema = ({ server, method }: FailedRequest) =>
  new RemoteMcpError(
    server,
    'invalid-reply',
    `answered ${method} with a message that does not follow the MCP schema`,
  );

/** The SDK's timeouts carry the limit in `data`; a server's own -32001 error does not. */
function isSdkTimeout(data: unknown): boolean {
  return typeof data === 'object' && data !== null && ('timeout' in data || 'maxTotalTimeout' in data);
}

/** The SDK raises -32000 itself for a closed connection and a cancelled request. */
function isServerError(error: unknown): boolean {
  const message = (error as { message?: unknown }).message;
  return !(typeof message === 'string' && /Connection closed|Request was cancelled/.test(message));
}
