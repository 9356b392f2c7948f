/** A JSON-RPC request id: a string or an integer (MCP requires it to be one of them, never null). */
export type RequestId = string | number;

/**
 * JSON-RPC error codes used by the endpoint (JSON-RPC 2.0 §5.1, where -32000 to -32099 are left to
 * servers; MCP 2026-07-28 adds -32020, -32021 and -32022).
 */
export const RPC_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
  HEADER_MISMATCH: -32020,
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

type RpcCode = (typeof RPC_CODES)[keyof typeof RPC_CODES];

/**
 * Every error the endpoint can write, with its JSON-RPC code and HTTP status (docs/http-contract.md).
 * The compiler forces each kind to have both.
 */
export const ERROR_KINDS = {
  methodNotAllowed: { code: RPC_CODES.INVALID_REQUEST, status: 405 },
  originNotAllowed: { code: RPC_CODES.INVALID_REQUEST, status: 403 },
  hostNotAllowed: { code: RPC_CODES.INVALID_REQUEST, status: 403 },
  unsupportedMediaType: { code: RPC_CODES.INVALID_REQUEST, status: 415 },
  notAcceptable: { code: RPC_CODES.INVALID_REQUEST, status: 406 },
  payloadTooLarge: { code: RPC_CODES.INVALID_REQUEST, status: 413 },
  parseError: { code: RPC_CODES.PARSE_ERROR, status: 400 },
  invalidRequest: { code: RPC_CODES.INVALID_REQUEST, status: 400 },
  unsupportedProtocolVersion: { code: RPC_CODES.INVALID_REQUEST, status: 400 },
  unauthorized: { code: RPC_CODES.INVALID_REQUEST, status: 401 },
  serverNotFound: { code: RPC_CODES.INVALID_REQUEST, status: 404 },
  serverInactive: { code: RPC_CODES.INVALID_REQUEST, status: 404 },
  appNotFound: { code: RPC_CODES.INVALID_REQUEST, status: 404 },
  appUnavailable: { code: RPC_CODES.INTERNAL_ERROR, status: 503 },
  shuttingDown: { code: RPC_CODES.INTERNAL_ERROR, status: 503 },
  methodNotFound: { code: RPC_CODES.METHOD_NOT_FOUND, status: 200 },
  unknownTool: { code: RPC_CODES.INVALID_PARAMS, status: 200 },
  invalidParams: { code: RPC_CODES.INVALID_PARAMS, status: 200 },
  internal: { code: RPC_CODES.INTERNAL_ERROR, status: 500 },
  // A server farm's limits and troubles (see the README, "Running several instances").
  tooManyRequests: { code: RPC_CODES.SERVER_ERROR, status: 429 },
  temporarilyUnavailable: { code: RPC_CODES.INTERNAL_ERROR, status: 503 },
  streamNotFound: { code: RPC_CODES.INVALID_REQUEST, status: 404 },
  // A resumed stream whose run stopped without a response: its last event, on a 200 stream.
  runLost: { code: RPC_CODES.INTERNAL_ERROR, status: 503 },
  // The 2026-07-28 era (MCP 2026-07-28 transports).
  modernHeaderMismatch: { code: RPC_CODES.HEADER_MISMATCH, status: 400 },
  modernInvalidParams: { code: RPC_CODES.INVALID_PARAMS, status: 400 },
  modernUnsupportedVersion: { code: RPC_CODES.UNSUPPORTED_PROTOCOL_VERSION, status: 400 },
  modernMethodNotFound: { code: RPC_CODES.METHOD_NOT_FOUND, status: 404 },
  // MCP 2026-07-28: a request that needs a capability the client did not declare MUST be 400.
  missingClientCapability: { code: RPC_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY, status: 400 },
  // Tasks (docs/tasks.md): a task that failed without a result, told by tasks/result.
  taskFailed: { code: RPC_CODES.INTERNAL_ERROR, status: 200 },
  // A caller that holds `maxActiveTasks` running tasks on a server: no new one (docs/tasks.md).
  tooManyTasks: { code: RPC_CODES.SERVER_ERROR, status: 200 },
  // Per-user access (MCP 2025-06-18 "Authorization"): a valid token without the rights it needs.
  forbidden: { code: RPC_CODES.INVALID_REQUEST, status: 403 },
} as const satisfies Record<string, { code: RpcCode; status: number }>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/**
 * An error the endpoint reports to the client as it is: its message is written for the client.
 * `id` is the request's id when it is known (echoed in the reply), else `null`.
 */
export class McpError extends Error {
  override name = 'McpError';
  /** Headers the reply carries besides its own (`WWW-Authenticate` on a refused caller). */
  declare readonly headers?: Readonly<Record<string, string>>;
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly data?: unknown,
    readonly id: RequestId | null = null,
  ) {
    super(message);
  }
  get code(): number {
    return ERROR_KINDS[this.kind].code;
  }
  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }
}

/** Anything thrown becomes a client-safe error: an `McpError` as it is, everything else an opaque internal error. */
export function toMcpError(error: unknown, id: RequestId | null = null): McpError {
  return error instanceof McpError ? error : new McpError('internal', 'Internal error', undefined, id);
}

/** The JSON-RPC envelope of an error; `data` only when there is some. */
export function errorBody(error: McpError, id: RequestId | null = error.id) {
  const body: { code: number; message: string; data?: unknown } = {
    code: error.code,
    message: error.message,
  };
  if (error.data !== undefined) body.data = error.data;
  return { jsonrpc: '2.0' as const, id, error: body };
}
