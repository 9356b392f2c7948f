/**
 * The per-user access suites' world: a real authorization server (`authorization-server.ts`), a
 * Knex store on a real database, and an Express host whose `mcpServer` checks tokens with
 * `jwtVerifier`. Three servers of tenant `acme`: two in `"oauth"` mode, one in `"code"` mode.
 */
import {
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Knex } from 'knex';
import {
  type AppRun,
  type ErrorContext,
  type HostApp,
  jwtVerifier,
  knexServerStore,
  type McpServerOptions,
  migrate,
  type ServerStore,
} from '../../src/index.js';
import { textWorkflow } from './apps.js';
import { type AuthorizationServer, MCP_SCOPE, startAuthorizationServer } from './authorization-server.js';
import type { DatabaseKind, TestDatabase } from './databases.js';
import { type Host, hostVariants, loadPackage, startHost } from './hosts.js';

export const TENANT = 'acme';

export const APPS = {
  notes: textWorkflow('notes', 'Notes'),
  ledger: textWorkflow('ledger', 'Ledger'),
  open: textWorkflow('open', 'Open Notes'),
};

export interface OAuthWorld {
  as: AuthorizationServer;
  host: Host;
  store: ServerStore;
  knex: Knex;
  codes: { notes: string; ledger: string; open: string };
  /** The canonical URL of a server, as its tokens name it. */
  url(code: string): string;
  /** Every run `runApp` saw. */
  runs: AppRun[];
  /** How often the host's `loadApp` ran. */
  loads: { count: number };
  /** What `onError` received. */
  errors: { error: unknown; context: ErrorContext }[];
  close(): Promise<void>;
}

export interface OAuthWorldOptions {
  database: DatabaseKind;
  /** Express major of the host. Default 5. */
  major?: 4 | 5;
  /** Replaces the host's `verifyToken` (it gets the tenant-aware `jwtVerifier` to wrap). */
  verifyToken?: (
    jwt: NonNullable<McpServerOptions['auth']>['verifyToken'],
  ) => NonNullable<McpServerOptions['auth']>['verifyToken'];
}

export async function startOAuthWorld({
  database,
  major = 5,
  verifyToken,
}: OAuthWorldOptions): Promise<OAuthWorld> {
  const as = await startAuthorizationServer();
  const db: TestDatabase = await database.create();
  const knex = db.connect();
  await migrate(knex);
  const store = knexServerStore(knex);
  const publish = (app: HostApp, authMode: 'code' | 'oauth') =>
    store.createServer({
      tenantId: TENANT,
      appId: app.id,
      name: app.name,
      description: '',
      parameters: {},
      authMode,
    });
  const servers = {
    notes: await publish(APPS.notes, 'oauth'),
    ledger: await publish(APPS.ledger, 'oauth'),
    open: await publish(APPS.open, 'code'),
  };

  const runs: AppRun[] = [];
  const loads = { count: 0 };
  const errors: OAuthWorld['errors'] = [];
  const jwt = jwtVerifier({ issuer: as.issuer });
  // The identity provider puts each user's tenant in a `tenant_id` claim.
  const tenantAware: NonNullable<McpServerOptions['auth']>['verifyToken'] = async (token, context) => {
    const info = await jwt(token, context);
    const tenantId = info?.extra?.tenant_id;
    return info && (typeof tenantId === 'string' ? { ...info, tenantId } : info);
  };
  const pkg = await loadPackage(major);
  const host = await startHost(
    hostVariants.find((variant) => variant.major === major) as (typeof hostVariants)[0],
    pkg,
    {
      // No app cache: every request that gets past the access check loads its app, so `loads` counts them.
      resolveServer: store.resolver(
        (appId) => {
          loads.count++;
          return Object.values(APPS).find((app) => app.id === appId) ?? null;
        },
        { appCacheTtlMs: 0 },
      ),
      runApp: (run) => {
        runs.push(run);
        return {
          outputs: { text: run.inputs.text, subject: run.auth?.subject ?? null, endUser: run.endUser.name },
        };
      },
      onError: (error, context) => errors.push({ error, context }),
      auth: {
        verifyToken: verifyToken ? verifyToken(tenantAware) : tenantAware,
        authorizationServers: [as.issuer],
        scopesSupported: [MCP_SCOPE],
        requiredScopes: [MCP_SCOPE],
        resourceName: 'Acme apps',
      },
    },
  );
  return {
    as,
    host,
    store,
    knex,
    codes: {
      notes: servers.notes.serverCode,
      ledger: servers.ledger.serverCode,
      open: servers.open.serverCode,
    },
    url: (code) => `${host.url}${host.path(code)}`,
    runs,
    loads,
    errors,
    async close() {
      await host.close();
      await as.close();
      await db.destroy();
    },
  };
}

/**
 * An MCP client's OAuth state, kept in memory, with a headless "browser": the authorization
 * redirect is followed by plain HTTP requests and the code it ends with is kept for `finishAuth`.
 */
export class HeadlessOAuthClient implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'headless test client',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  /** The parameters of the last authorization's callback (`code`, `iss`), for `transport.finishAuth`. */
  callback: URLSearchParams | undefined;
  registered: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  discovered: OAuthDiscoveryState | undefined;
  /** Every authorization URL the client was sent to. */
  readonly authorizationUrls: URL[] = [];

  /** `signIn` plays the browser: it follows the authorization URL and returns the parameters of the callback it ends with. */
  constructor(private readonly signIn: (url: URL, redirectUri: string) => Promise<URLSearchParams>) {}

  /** The code of the last authorization. */
  get authorizationCode(): string | undefined {
    return this.callback?.get('code') ?? undefined;
  }

  clientInformation() {
    return this.registered;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.registered = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    this.callback = await this.signIn(url, this.redirectUrl);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  // Kept as a real client keeps it, so that the 2026-07-28 client checks that the callback comes
  // from the authorization server it discovered.
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state;
  }
  discoveryState() {
    return this.discovered;
  }
}

/** A user signs in for one server through the client's whole flow (discovery, registration, PKCE, token); returns the access token. */
export async function signIn(
  world: OAuthWorld,
  code: string,
  subject: string,
  tenantId = TENANT,
): Promise<string> {
  world.as.signInAs(subject, tenantId);
  const client = new HeadlessOAuthClient((url, redirectUri) => world.as.authorize(url, redirectUri));
  const serverUrl = world.url(code);
  if ((await auth(client, { serverUrl })) !== 'REDIRECT') throw new Error('expected a redirect to sign in');
  await auth(client, { serverUrl, authorizationCode: client.authorizationCode as string });
  return client.saved?.access_token as string;
}
