import { z } from 'zod';
import { AccessRefused } from '../errors/access-refused.js';
import type { AuthInfo, ServerRecord } from '../types/index.js';
import { redactSecret } from '../util/redact-secret.js';
import type { ParsedAuthOptions } from './auth-options.js';
import { bearerChallenge } from './challenge.js';

/** Where a protected server is, as its clients see it (RFC 9728). */
export interface ResourceUrls {
  /** The canonical URL of the server: the audience its tokens must name (RFC 8707). */
  resource: string;
  /** Its protected resource metadata (RFC 9728 §3.1), named in every challenge. */
  metadata: string;
}

/** What a request to an `"oauth"` server presents, as the HTTP layer read it. */
export interface Presented<HostRequest> {
  /** The `Authorization: Bearer` token, if any. */
  token: string | undefined;
  urls: ResourceUrls;
  request: HostRequest;
}

/** What `verifyToken` must return besides `null`; anything else is the host's bug, told to `onError`. */
const AuthInfoSchema = z.looseObject({
  subject: z.string().min(1),
  tenantId: z.string().optional(),
  scopes: z.array(z.string()),
  clientId: z.string().optional(),
  expiresAt: z.number().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export const REDACTED_TOKEN = '[token]';

/**
 * MCP 2025-06-18 "Authorization", resource-server side: the caller of an `"oauth"` server must
 * present a bearer token that the host's `verifyToken` accepts for this server's URL, that has not
 * expired, that belongs to the server's tenant and grants the required scopes. Throws
 * `AccessRefused` (401 / 403 with its challenge) otherwise. What a failing `verifyToken` throws
 * (an error, a string, an `AggregateError`) is rethrown with the token scrubbed from it, for the
 * error hook.
 */
export async function authenticateCaller<HostRequest>(
  server: ServerRecord,
  { token, urls, request }: Presented<HostRequest>,
  options: ParsedAuthOptions,
): Promise<AuthInfo> {
  const required = options.requiredScopes;
  const challenge = (error?: 'invalid_token', description?: string) =>
    bearerChallenge({
      resourceMetadata: urls.metadata,
      ...(error ? { error, description } : {}),
      ...(required.length > 0 ? { scope: required.join(' ') } : {}),
    });
  if (token === undefined) {
    throw new AccessRefused(
      'unauthorized',
      'Unauthorized: this MCP server requires an OAuth access token (Authorization: Bearer)',
      challenge(),
    );
  }

  let verified: unknown;
  try {
    verified = await options.verifyToken(token, { resource: urls.resource, req: request });
  } catch (error) {
    throw redactSecret(error, token, REDACTED_TOKEN);
  }
  if (verified === null || verified === undefined) {
    const description = 'The access token is not valid for this server';
    throw new AccessRefused(
      'unauthorized',
      `Unauthorized: ${description}`,
      challenge('invalid_token', description),
    );
  }
  const parsed = AuthInfoSchema.safeParse(verified);
  if (!parsed.success) {
    throw new TypeError(
      'mcpServer: auth.verifyToken must return { subject: string, scopes: string[], … } or null',
    );
  }
  const auth = parsed.data as AuthInfo;

  if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now()) {
    const description = 'The access token has expired';
    throw new AccessRefused(
      'unauthorized',
      `Unauthorized: ${description}`,
      challenge('invalid_token', description),
    );
  }
  if (auth.tenantId !== undefined && auth.tenantId !== server.tenantId) {
    // RFC 9110 §15.5.4: the credentials are understood and not enough; signing in again as the same user would not help.
    throw new AccessRefused('forbidden', 'Forbidden: the access token belongs to another tenant');
  }
  const missing = required.filter((scope) => !auth.scopes.includes(scope));
  if (missing.length > 0) {
    const description = `The access token lacks the scope ${missing.join(' ')}`;
    throw new AccessRefused(
      'forbidden',
      `Forbidden: ${description}`,
      bearerChallenge({
        resourceMetadata: urls.metadata,
        error: 'insufficient_scope',
        description,
        scope: required.join(' '),
      }),
    );
  }
  return auth;
}
