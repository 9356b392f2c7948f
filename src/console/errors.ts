/**
 * Every error the console can answer, with its HTTP status. The compiler forces each code
 * to have one; handlers throw `ConsoleError` with a code, never a bare status.
 */
export const CONSOLE_ERRORS = {
  invalid_json: 400,
  invalid_request: 400,
  /** A remote MCP server that could not be reached or refused a request (tool providers). */
  mcp_server_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  server_exists: 409,
  provider_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal: 500,
  /** The database is out of reach, or did not answer within `resolveTimeoutMs`: try again later. */
  temporarily_unavailable: 503,
  /** The host's `encryptionKey` cannot decrypt the stored tool providers. */
  encryption_key_mismatch: 500,
} as const satisfies Record<string, number>;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

/** Field-level messages of a 400, keyed by the field's dotted path (`parameters.top_n`). */
export type FieldErrors = Record<string, string>;

/**
 * An error the console answers as it is: its message is written for the admin UI. Messages never
 * carry a server code, and authorization failures never say whether the app exists.
 */
export class ConsoleError extends Error {
  override name = 'ConsoleError';
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
    readonly fields?: FieldErrors,
  ) {
    super(message);
  }
  get status(): number {
    return CONSOLE_ERRORS[this.code];
  }
}

/** One shape for every console error: `{ error: { code, message, fields? } }`. */
export function consoleErrorBody(error: ConsoleError): {
  error: { code: ConsoleErrorCode; message: string; fields?: FieldErrors };
} {
  const body: { code: ConsoleErrorCode; message: string; fields?: FieldErrors } = {
    code: error.code,
    message: error.message,
  };
  if (error.fields) body.fields = error.fields;
  return { error: body };
}
