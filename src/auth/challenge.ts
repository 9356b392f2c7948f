/**
 * The `WWW-Authenticate` answers of a protected MCP server (MCP 2025-06-18 "Authorization",
 * RFC 6750 §3, RFC 9728 §5.1): every challenge names the protected resource metadata, so a client
 * can find the authorization server from any refusal.
 */
interface Challenge {
  resourceMetadata: string;
  error?: 'invalid_token' | 'insufficient_scope';
  description?: string;
  /** Space-separated scopes the request needs (MCP 2025-11-25: clients ask for these). */
  scope?: string;
}

/** RFC 9110 §5.6.4 quoted-string. */
const quoted = (value: string) => `"${value.replace(/[\\"]/g, '\\$&')}"`;

export function bearerChallenge({ resourceMetadata, error, description, scope }: Challenge): string {
  const params: string[] = [];
  if (error) params.push(`error=${quoted(error)}`);
  if (description) params.push(`error_description=${quoted(description)}`);
  if (scope) params.push(`scope=${quoted(scope)}`);
  params.push(`resource_metadata=${quoted(resourceMetadata)}`);
  return `Bearer ${params.join(', ')}`;
}
