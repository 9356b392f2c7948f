import type { ParsedAuthOptions } from './auth-options.js';

/** RFC 9728 §3.1: the metadata of a resource sits at this prefix followed by the resource's path. */
export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

/**
 * The protected resource metadata of one `"oauth"` server (RFC 9728 §2), which MCP clients read to
 * find the authorization server to sign in with (MCP 2025-06-18 "Authorization").
 */
export function protectedResourceMetadata(
  resource: string,
  options: ParsedAuthOptions,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    resource,
    authorization_servers: options.authorizationServers,
  };
  if (options.scopesSupported) metadata.scopes_supported = options.scopesSupported;
  // RFC 6750 §2.1 only: a token in a query or a form body ends up in logs.
  metadata.bearer_methods_supported = ['header'];
  if (options.resourceName) metadata.resource_name = options.resourceName;
  return metadata;
}
