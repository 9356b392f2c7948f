import { McpError, type RequestId } from './mcp-error.js';

/**
 * An error whose reply tells the client when to try again: `429` over a rate limit, `503` while
 * the database does not answer. `Retry-After` is in whole seconds (RFC 9110 §10.2.3), at least 1.
 */
export class RetryLater extends McpError {
  override readonly headers: Readonly<Record<string, string>>;
  constructor(
    kind: 'tooManyRequests' | 'temporarilyUnavailable',
    message: string,
    retryAfterMs: number,
    id: RequestId | null,
  ) {
    super(kind, message, undefined, id);
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
  }
}
