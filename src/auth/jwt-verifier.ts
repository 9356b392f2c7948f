import { z } from 'zod';
import type { AuthInfo, VerifyToken } from '../types/index.js';
import { parseFactoryOptions } from '../util/factory-options.js';
import { isModuleNotFound, missingPeer } from '../util/missing-peer.js';

/** Options of `jwtVerifier`. */
export interface JwtVerifierOptions {
  /** The authorization server's issuer URL; tokens must carry it as `iss`. */
  issuer: string;
  /** Where its signing keys are (a JWKS). Default: the `jwks_uri` of the issuer's metadata, discovered once. */
  jwksUri?: string;
  /** The audience tokens must name (`aud`). Default: the canonical URL of the server called (RFC 8707). */
  audience?: string | string[];
}

/** The options `jwtVerifier` accepts (docs/options.md lists them). */
export const OptionsSchema = z.strictObject({
  issuer: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  jwksUri: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
});

type Jose = typeof import('jose');
type KeySet = ReturnType<Jose['createRemoteJWKSet']>;

/** `jose` is an optional peer dependency: loaded on first use, so hosts that never verify JWTs need not install it. */
let jose: Promise<Jose> | undefined;
function loadJose(): Promise<Jose> {
  jose ??= import('jose').catch((error: unknown) => {
    jose = undefined;
    throw isModuleNotFound(error, 'jose') ? missingPeer('jwtVerifier', 'jose', { cause: error }) : error;
  });
  return jose;
}

/** How long a metadata or key fetch may take before the request fails (and is retried by the next one). */
const FETCH_TIMEOUT_MS = 5000;

/**
 * A ready `verifyToken` for JWT access tokens (RFC 9068), on `jose`: the signature against the
 * issuer's keys (fetched once and cached; fetched again for an unknown key id), `exp` (which the
 * token must have, RFC 9068 §2.2), `iss`, and `aud` = the canonical URL of the server called, unless
 * `audience` says otherwise. A token that fails any check is `null` (401 `invalid_token`); keys or
 * metadata that cannot be fetched (no answer in time, a status other than 200, a body that is no
 * key set) are an internal failure, told to `onError`. `run.auth` gets `sub`, the scopes (`scope`
 * or `scp`), the client (`client_id` or `azp`), `exp`, and every claim in `extra`.
 *
 * @example
 * ```ts
 * mcpServer({ resolveServer, runApp, auth: {
 *   verifyToken: jwtVerifier({ issuer: 'https://idp.example.com/realms/acme' }),
 *   authorizationServers: ['https://idp.example.com/realms/acme'],
 * } });
 * ```
 */
export function jwtVerifier(options: JwtVerifierOptions): VerifyToken {
  const { issuer, jwksUri, audience } = parseFactoryOptions(OptionsSchema, options, 'jwtVerifier');
  let keys: Promise<KeySet> | undefined;
  const keySet = (lib: Jose): Promise<KeySet> => {
    if (!keys) {
      const found = (async () => {
        const uri = jwksUri ?? (await discoverJwksUri(issuer));
        return lib.createRemoteJWKSet(new URL(uri), { timeoutDuration: FETCH_TIMEOUT_MS });
      })();
      // A failed discovery is not kept: the next request tries again.
      found.catch(() => {
        if (keys === found) keys = undefined;
      });
      keys = found;
    }
    return keys;
  };

  return async (token, { resource }) => {
    const lib = await loadJose();
    const jwks = await keySet(lib);
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await lib.jwtVerify(token, jwks, {
        issuer,
        audience: audience ?? resource,
        // RFC 9068 §2.2: without `exp` a token never expires; `sub` is checked by authInfoOf, empty too.
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (isTokenError(lib, error)) return null;
      // Anything else is ours, not the token's: keys that could not be fetched (a timeout, a status
      // other than 200, a body that is no JSON key set), an unusable key, a bug.
      throw error;
    }
    return authInfoOf(claims);
  };
}

/**
 * Whether `jose` refused the token itself: its form, its header (an algorithm or a `crit` extension
 * it does not support, a key id the issuer does not publish, no key id where several keys fit), its
 * signature or its claims. Whoever sends a request chooses all of these, so they answer 401, never
 * a 500 for `onError`. The base `JOSEError` is not among them: `jose` throws it for a key set it
 * could not fetch.
 */
function isTokenError(lib: Jose, error: unknown): boolean {
  const { errors } = lib;
  return [
    errors.JWSInvalid,
    errors.JWTInvalid,
    errors.JOSEAlgNotAllowed,
    errors.JOSENotSupported,
    errors.JWKSNoMatchingKey,
    errors.JWKSMultipleMatchingKeys,
    errors.JWSSignatureVerificationFailed,
    errors.JWTExpired,
    errors.JWTClaimValidationFailed,
  ].some((kind) => error instanceof kind);
}

/** RFC 9068 §2.2 claims, as `run.auth` shows them; a token without a subject names nobody. */
function authInfoOf(claims: Record<string, unknown>): AuthInfo | null {
  const { sub, scope, scp, client_id: clientId, azp, exp } = claims;
  if (typeof sub !== 'string' || sub === '') return null;
  const auth: AuthInfo = { subject: sub, scopes: scopesOf(scope ?? scp), extra: claims };
  const client = typeof clientId === 'string' ? clientId : azp;
  if (typeof client === 'string') auth.clientId = client;
  if (typeof exp === 'number') auth.expiresAt = exp;
  return auth;
}

/** `scope` is a space-separated string (RFC 9068); some providers send `scp` as an array. */
function scopesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((scope) => scope !== '');
  return Array.isArray(value) ? value.filter((scope): scope is string => typeof scope === 'string') : [];
}

/**
 * The issuer's `jwks_uri`: from OpenID Connect discovery (`<issuer>/.well-known/openid-configuration`),
 * else RFC 8414 metadata (`/.well-known/oauth-authorization-server` before the issuer's path). The
 * document must name the same issuer (RFC 8414 §3.3), or a look-alike could hand out its own keys.
 */
async function discoverJwksUri(issuer: string): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
  for (const candidate of candidates) {
    const response = await fetch(candidate, {
      headers: { Accept: 'application/json' },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (!response.ok) continue;
    const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (metadata.issuer !== issuer) {
      throw new Error(`jwtVerifier: the metadata at ${candidate} names another issuer`);
    }
    if (typeof metadata.jwks_uri !== 'string') throw new Error(`jwtVerifier: no jwks_uri at ${candidate}`);
    return metadata.jwks_uri;
  }
  throw new Error(`jwtVerifier: no authorization server metadata found for ${issuer}`);
}
