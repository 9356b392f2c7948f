import { McpError, type RequestId } from './mcp-error.js';

/**
 * A refused caller: 401 or 403, a JSON-RPC error body like every other answer of the endpoint, and
 * the `WWW-Authenticate` header when there is a challenge to make. Its text never holds the token.
 */
export class AccessRefused extends McpError {
  override name = 'AccessRefused';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(
    kind: 'unauthorized' | 'forbidden',
    message: string,
    readonly challenge?: string,
    id: RequestId | null = null,
  ) {
    super(kind, message, undefined, id);
    this.headers = challenge === undefined ? {} : { 'WWW-Authenticate': challenge };
  }

  /** The same refusal, answering the request with this id. */
  withId(id: RequestId | null): AccessRefused {
    return new AccessRefused(this.kind as 'unauthorized' | 'forbidden', this.message, this.challenge, id);
  }
}
