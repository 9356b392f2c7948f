/**
 * `jwtVerifier` against a real authorization server's keys: what it accepts, what it refuses
 * (`null`: 401 invalid_token) and what is its own failure (thrown: an internal error for onError).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, jwtVerifier } from '../src/index.js';
import { type AuthorizationServer, startAuthorizationServer } from './helpers/authorization-server.js';

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
