/**
 * `jwtVerifier` against a real authorization server's keys: what it accepts, what it refuses
 * (`null`: 401 invalid_token) and what is its own failure (thrown: an internal error for onError),
 * by itself and behind an `"oauth"` server over HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../../src/index.js';
import { ConfigurationError, type ErrorContext, jwtVerifier, type VerifyToken } from '../../src/index.js';
import { publishApp } from '../helpers/apps.js';
import { type AuthorizationServer, startAuthorizationServer } from '../helpers/authorization-server.js';
import { type Host, hostVariants, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const NOTES: pkg.HostApp = { id: 'notes', name: 'Notes', mode: 'workflow', inputForm: [] };

const RESOURCE = 'http://127.0.0.1:4000/mcp/server/AbCdEfGhIjKlMnOp/mcp';
const context = { resource: RESOURCE, req: undefined };

describe('jwtVerifier', () => {
  let as: AuthorizationServer;
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    sub: 'alice',
    aud: RESOURCE,
    scope: 'mcp:tools files:read',
    client_id: 'client-1',
    iat: now(),
    exp: now() + 300,
    ...extra,
  });

  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('accepts a token of the issuer for the resource, keys discovered from its metadata', async () => {
    const token = await as.sign(claims());
    const verify = jwtVerifier({ issuer: as.issuer });
    const info = await verify(token, context);
    expect(info).toEqual({
      subject: 'alice',
      scopes: ['mcp:tools', 'files:read'],
      clientId: 'client-1',
      expiresAt: expect.any(Number),
      extra: expect.objectContaining({ sub: 'alice', iss: as.issuer, aud: RESOURCE }),
    });
  });

  it('takes the keys from jwksUri when given, scp arrays as scopes and azp as the client', async () => {
    const token = await as.sign(
      claims({ scope: undefined, scp: ['a', 'b'], client_id: undefined, azp: 'client-2' }),
    );
    const verify = jwtVerifier({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks` });
    expect(await verify(token, context)).toMatchObject({
      subject: 'alice',
      scopes: ['a', 'b'],
      clientId: 'client-2',
    });
  });

  it('refuses another audience, another issuer, an expired token, a bad signature, no subject and garbage', async () => {
    const verify = jwtVerifier({ issuer: as.issuer });
    const refused = [
      await as.sign(claims({ aud: 'http://127.0.0.1:4000/mcp/server/Other0000000000/mcp' })),
      await as.sign(claims({ iss: 'http://127.0.0.1:1' })),
      await as.sign(claims({ iat: now() - 600, exp: now() - 300 })),
      `${(await as.sign(claims())).slice(0, -4)}AAAA`,
      await as.sign(claims({ sub: undefined })),
      'not-a-jwt',
    ];
    for (const token of refused) expect(await verify(token, context)).toBeNull();
  });

  it('refuses a token without exp (RFC 9068 §2.2), and whatever a caller can put in the header', async () => {
    const verify = jwtVerifier({ issuer: as.issuer });
    const { privateKey: otherKey } = await generateKeyPair('RS256');
    const unsigned = (header: Record<string, unknown>) =>
      [header, claims()].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.');
    const refused = {
      noExp: await as.sign(claims({ exp: undefined })),
      unknownKey: await new SignJWT({ iss: as.issuer, ...claims() })
        .setProtectedHeader({ alg: 'RS256', kid: 'not-published' })
        .sign(otherKey),
      symmetric: await new SignJWT({ iss: as.issuer, ...claims() })
        .setProtectedHeader({ alg: 'HS256', kid: 'test-key' })
        .sign(new TextEncoder().encode('a shared secret anyone could choose')),
      none: `${unsigned({ alg: 'none' })}.`,
      unknownCrit: `${unsigned({ alg: 'RS256', kid: 'test-key', crit: ['x-unknown'], 'x-unknown': 1 })}.AAAA`,
    };
    for (const [what, token] of Object.entries(refused)) {
      expect({ what, verified: await verify(token, context) }).toEqual({ what, verified: null });
    }
  });

  it('checks the audience option instead of the resource when it is given', async () => {
    const verify = jwtVerifier({ issuer: as.issuer, audience: 'api://acme' });
    expect(await verify(await as.sign(claims({ aud: 'api://acme' })), context)).toMatchObject({
      subject: 'alice',
    });
    expect(await verify(await as.sign(claims()), context)).toBeNull();
  });

  it('an issuer whose metadata cannot be found is its own failure, tried again on the next call', async () => {
    const verify = jwtVerifier({ issuer: `${as.issuer}/nowhere` });
    const token = await as.sign(claims());
    await expect(verify(token, context)).rejects.toThrow(
      `jwtVerifier: no authorization server metadata found for ${as.issuer}/nowhere`,
    );
    await expect(verify(token, context)).rejects.toThrow('no authorization server metadata found');
  });

  it('its options are checked at once', () => {
    expect(() => jwtVerifier({} as never)).toThrow(ConfigurationError);
    expect(() => jwtVerifier({ issuer: 'idp.example.com' })).toThrow(
      'jwtVerifier: invalid option "issuer": must be an http or https URL',
    );
    expect(() => jwtVerifier({ issuer: 'https://idp.example.com', audiences: 'x' } as never)).toThrow(
      'jwtVerifier: unknown option "audiences"',
    );
  });
});

describe('jwtVerifier on an "oauth" server, over HTTP', () => {
  const LIST = request(7, 'tools/list', {});
  let as: AuthorizationServer;
  /** An identity provider's key endpoint that fails, one way per path. */
  let keys: http.Server;
  let keysUrl: string;
  let host: Host;
  let serverId: string;
  let code: string;
  /** The server's URL, the audience of its tokens. */
  let resource: string;
  /** The check of the current test, behind the host's `verifyToken`. */
  let verify: VerifyToken;
  const reported: { error: unknown; context: ErrorContext }[] = [];

  beforeAll(async () => {
    as = await startAuthorizationServer();
    keys = http.createServer((req, res) => {
      const answers: Record<string, [number, string, string]> = {
        '/status-500': [500, 'application/json', '{"error":"internal"}'],
        '/status-404': [404, 'text/html', '<!DOCTYPE html><p>Not found</p>'],
        '/html': [200, 'text/html', '<!DOCTYPE html><p>Sign in</p>'],
        '/no-key-set': [200, 'application/json', '{"keys":"none"}'],
      };
      const [status, type, body] = answers[req.url ?? ''] ?? [404, 'text/plain', 'no such path'];
      res.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
    keysUrl = `http://127.0.0.1:${(keys.address() as AddressInfo).port}`;

    const store = pkg.memoryServerStore();
    const server = await publishApp(store, NOTES, { tenantId: 'acme', authMode: 'oauth' });
    serverId = server.id;
    code = server.serverCode;
    host = await startHost(hostVariants[0] as (typeof hostVariants)[0], pkg, {
      resolveServer: store.resolver(() => NOTES),
      runApp: () => ({ outputs: {} }),
      onError: (error, errorContext) => reported.push({ error, context: errorContext }),
      auth: { verifyToken: (token, checked) => verify(token, checked), authorizationServers: [as.issuer] },
    });
    resource = `${host.url}${host.path(code)}`;
  });
  afterAll(async () => {
    await host?.close();
    await as?.close();
    await new Promise((resolve) => keys?.close(resolve));
  });

  const token = (extra: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return as.sign({ sub: 'alice', aud: resource, scope: 'mcp:tools', iat: now, exp: now + 300, ...extra });
  };
  const post = (bearer: string) => host.post(code, LIST, { authorization: `Bearer ${bearer}` });

  it('a token without exp is refused as any invalid token: 401 invalid_token, nothing reported', async () => {
    verify = jwtVerifier({ issuer: as.issuer });
    expect((await post(await token())).status).toBe(200);
    const before = reported.length;
    const reply = await post(await token({ exp: undefined }));
    expectRpcReply(
      reply,
      401,
      rpcError(7, -32600, 'Unauthorized: The access token is not valid for this server'),
    );
    expect(reply.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="The access token is not valid for this server", resource_metadata="${host.url}/.well-known/oauth-protected-resource${host.path(code)}"`,
    );
    expect(reported.slice(before)).toEqual([]);
  });

  it.each([
    ['answers 500', '/status-500', 'Expected 200 OK from the JSON Web Key Set HTTP response'],
    [
      'answers 404 with an HTML page',
      '/status-404',
      'Expected 200 OK from the JSON Web Key Set HTTP response',
    ],
    ['answers 200 with an HTML page', '/html', 'Failed to parse the JSON Web Key Set HTTP response as JSON'],
    ['answers JSON that is no key set', '/no-key-set', 'JSON Web Key Set malformed'],
  ])(
    'keys that cannot be had (the key set URL %s) are an internal failure: 500, no challenge, the cause to onError',
    async (_how, path, message) => {
      verify = jwtVerifier({ issuer: as.issuer, jwksUri: `${keysUrl}${path}` });
      const bearer = await token();
      const before = reported.length;
      const reply = await post(bearer);
      expectRpcReply(reply, 500, rpcError(7, -32603, 'Internal error'));
      expect(reply.headers['www-authenticate']).toBeUndefined();
      expect(reported.slice(before)).toEqual([
        { error: expect.objectContaining({ message }), context: { phase: 'authenticate', serverId } },
      ]);
      expect(reply.text).not.toContain(message);
    },
  );
});
