/**
 * A DEVELOPMENT STAND-IN for your identity provider (Keycloak, Auth0, Entra ID, your own): a small
 * OAuth 2.1 authorization server, so that the example's "oauth" server can be tried without one.
 * It keeps everything in memory, makes new signing keys at every start, and signs in ANYONE who
 * types a name. Never use it in production: give `mcpServer`'s `auth` option your real provider
 * (see the README, "Per-user access with OAuth").
 *
 * It is `oidc-provider` (a dev dependency of this repository) with what MCP clients use: dynamic
 * client registration (RFC 7591), PKCE, resource indicators (RFC 8707: each access token is a JWT
 * whose `aud` is the MCP server's URL) and a `tenant_id` claim naming the example's tenant.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import { devMemoryAdapter } from './dev-memory-adapter.js';

export const MCP_SCOPE = 'mcp:tools';

/**
 * What MCP clients need of an authorization server, as `oidc-provider` configuration (the tests'
 * authorization server uses it too): registration, PKCE (on by default), JWT access tokens for the
 * resource asked for, with the scope `mcp:tools` and the user's tenant in `tenant_id`. Sign-in and
 * consent happen at `/interaction/<uid>`, which the caller serves.
 * @param {{ signingKey: import('oidc-provider').JWK, tenantOf: (accountId: string) => string | undefined }} options
 * @returns {import('oidc-provider').Configuration}
 */
export function providerConfiguration({ signingKey, tenantOf }) {
  return {
    adapter: devMemoryAdapter(),
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomUUID()] },
    scopes: [MCP_SCOPE],
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 3600 },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: MCP_SCOPE,
          audience: resource,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    extraTokenClaims: (_ctx, token) => (token.accountId ? { tenant_id: tenantOf(token.accountId) } : {}),
  };
}

/**
 * Starts the stand-in on `host:port` (`port` 0: any free port).
 * @param {{ host: string, port: number, publicHost: string, tenantId: string }} options
 * @returns {Promise<{ issuer: string, close(): Promise<void> }>}
 */
export async function startDevAuthorizationServer({ host, port, publicHost, tenantId }) {
  const server = createServer();
  server.listen(port, host);
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const issuer = `http://${publicHost}:${server.address().port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });

  const signingKey = { ...(await exportJWK(privateKey)), kid: 'dev', alg: 'RS256', use: 'sig' };
  // `oidc-provider` is loaded on the first request, by the first client that signs a user in: it
  // supports Node.js 22 and later, and on Node.js 20 it warns about that when it is loaded. An
  // example started on Node.js 20 that never signs anyone in prints no such warning.
  let loading;
  const providerReady = () => {
    loading ??= import('oidc-provider').then(({ default: Provider }) => {
      const provider = new Provider(issuer, providerConfiguration({ signingKey, tenantOf: () => tenantId }));
      return { provider, callback: provider.callback() };
    });
    return loading;
  };

  server.on('request', (req, res) => {
    providerReady()
      .then(({ provider, callback }) =>
        req.url?.startsWith('/interaction/') ? interact(provider, req, res) : callback(req, res),
      )
      .catch((error) => {
        res.statusCode = 500;
        res.end(`sign-in failed: ${error instanceof Error ? error.message : error}`);
      });
  });

  return {
    issuer,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The sign-in page: GET shows a name field, POST signs that name in and grants what the client asked. */
async function interact(provider, req, res) {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET' && details.prompt.name === 'login') {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(signInPage(details.uid));
    return;
  }
  const accountId =
    details.prompt.name === 'login' ? (await formOf(req)).get('name')?.trim() : details.session?.accountId;
  if (!accountId) {
    res.statusCode = 400;
    res.end('a name is required');
    return;
  }
  const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  const result = { login: { accountId }, consent: { grantId } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

async function formOf(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

const signInPage = (uid) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Development sign-in</title></head>
<body>
<h1>Development sign-in</h1>
<p>This is the example app's stand-in for an identity provider: any name signs in. Never use it in production.</p>
<form method="post" action="/interaction/${uid}">
<label>Your name <input name="name" autofocus required></label>
<button type="submit">Sign in</button>
</form>
</body></html>
`;
