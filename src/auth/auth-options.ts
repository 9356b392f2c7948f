import { z } from 'zod';
import type { VerifyToken } from '../types/index.js';
import { functionOption } from '../util/factory-options.js';

/** RFC 6749 §3.3: a scope is one token of printable characters without spaces, quotes or backslashes. */
const scope = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token (no spaces or quotes)');

/** An authorization server is named by its issuer URL (RFC 8414 §2): http or https, no query or fragment. */
const issuerUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .refine((url) => !url.includes('?') && !url.includes('#'), 'must have no query or fragment');

/**
 * A base URL in the canonical form of MCP 2025-06-18 "Authorization" (RFC 8707 §2): scheme and host
 * in lower case (the URL parser does that), no default port, no trailing slash.
 */
function canonicalBaseUrl(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname.replace(/\/+$/, '')}`;
}

/** The `auth` option of `mcpServer`, validated once at factory time like every other option. */
export const AuthOptionsSchema = z.strictObject({
  verifyToken: functionOption<VerifyToken<unknown>>('verifyToken must be a function'),
  authorizationServers: z.array(issuerUrl).min(1, 'must name at least one authorization server'),
  scopesSupported: z.array(scope).optional(),
  requiredScopes: z.array(scope).default([]),
  resourceName: z.string().min(1).optional(),
  resourceBaseUrl: issuerUrl.transform(canonicalBaseUrl).optional(),
});

export type ParsedAuthOptions = z.output<typeof AuthOptionsSchema>;
