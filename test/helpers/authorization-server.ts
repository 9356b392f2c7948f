/**
 * A real OAuth 2.1 authorization server for the per-user access suites: `oidc-provider` on
 * 127.0.0.1, with dynamic client registration (RFC 7591), PKCE, resource indicators (RFC 8707: the
 * access token's `aud` is the resource the client asked for) and JWT access tokens (RFC 9068) that
 * carry a `tenant_id` claim. Sign-in and consent are automatic, as the user `signInAs` names, so a
 * client's authorization redirect can be followed with plain HTTP requests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { providerConfiguration } from '../../example-app/dev-authorization-server.js';

export { MCP_SCOPE } from '../../example-app/dev-authorization-server.js';

export interface AuthorizationServer {
  /** The issuer URL, `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** Who signs in at the next authorization request, and the tenant their tokens name. */
  signInAs(subject: string, tenantId: string): void;
  /**
   * Follows an authorization URL as a browser would (sign-in and consent are automatic) up to the
   * client's redirect URI, and returns that callback's parameters (`code`, `iss`, `state`).
   */
  authorize(url: URL, redirectUri: string): Promise<URLSearchParams>;
  /** Signs a token with the server's own key (`iss` is the issuer unless given), for claims no real flow gives (an expired token). */
  sign(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let user = { subject: 'alice', tenantId: 'acme' };
  const tenants = new Map<string, string>();

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The example's configuration: what MCP clients need, and the user's tenant in `tenant_id`.
  const provider = new Provider(
    issuer,
    providerConfiguration({ signingKey, tenantOf: (id) => tenants.get(id) }),
  );

  /** The automatic sign-in and consent: whatever the prompt asks for is granted. */
  async function interact(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      tenants.set(user.subject, user.tenantId);
      await provider.interactionFinished(req, res, { login: { accountId: user.subject } });
      return;
    }
    const accountId = details.session?.accountId as string;
    const grant = new provider.Grant({ accountId, clientId: details.params.client_id as string });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    } else callback(req, res);
  });

  return {
    issuer,
    signInAs(subject, tenantId) {
      user = { subject, tenantId };
    },
    async authorize(url, redirectUri) {
      const cookies = new Map<string, string>();
      let next = url.href;
      for (let hop = 0; hop < 20; hop++) {
        if (next.startsWith(redirectUri)) {
          const callback = new URL(next).searchParams;
          if (!callback.get('code'))
            throw new Error(`the authorization server answered without a code: ${next}`);
          return callback;
        }
        const response = await fetch(next, {
          redirect: 'manual',
          headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair = ''] = cookie.split(';');
          const equals = pair.indexOf('=');
          cookies.set(pair.slice(0, equals), pair.slice(equals + 1));
        }
        const location = response.headers.get('location');
        if (!location)
          throw new Error(`no redirect from ${next}: ${response.status} ${await response.text()}`);
        next = new URL(location, next).href;
      }
      throw new Error('too many redirects');
    },
    sign(claims) {
      return new SignJWT({ iss: issuer, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: signingKey.kid as string, typ: 'at+jwt' })
        .sign(privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
