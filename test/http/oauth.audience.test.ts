/**
 * The audience an `"oauth"` server's tokens must name comes from a checked origin only
 * (docs/security.md, docs/http-contract.md "Per-user access"): `auth.resourceBaseUrl` when set,
 * else a `Host` (or a trusted `X-Forwarded-Host`) that passed the host check. A `Host` nobody
 * checked would let a token minted for another resource in. The metadata's `resource` is the
 * canonical URL, whatever the spelling of the requested one.
 */
import express from 'express';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type ErrorContext,
  type McpServerOptions,
  mcpServer,
  memoryServerStore,
  type ServerStore,
} from '../../src/index.js';
import { type Host, hostVariants, type Reply, serveApp } from '../helpers/hosts.js';

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const ISSUER = 'https://idp.example.com/realms/acme';
const EXPRESS_5 = hostVariants[0]!;

let store: ServerStore;
let notes: string;
let open: string;
beforeAll(async () => {
  store = memoryServerStore();
  const server = (appId: string, authMode: 'code' | 'oauth') =>
    store.createServer({ tenantId: 'acme', appId, name: appId, description: '', parameters: {}, authMode });
  notes = (await server('notes', 'oauth')).serverCode;
  open = (await server('open', 'code')).serverCode;
});

/** The audiences `verifyToken` was asked about, and what `onError` got. */
const resources: string[] = [];
const errors: { error: unknown; context: ErrorContext }[] = [];
let host: Host | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
  resources.length = 0;
  errors.length = 0;
});

async function start(
  options: Omit<Partial<McpServerOptions>, 'auth'> & {
    auth?: Partial<NonNullable<McpServerOptions['auth']>>;
  },
  listen = '127.0.0.1',
  build?: (app: express.Express) => void,
): Promise<Host> {
  const app = express();
  build?.(app);
  app.use(
    mcpServer({
      resolveServer: store.resolver((appId) => ({ id: appId, name: appId, mode: 'workflow', inputForm: [] })),
      runApp: () => ({ outputs: {} }),
      onError: (error, context) => errors.push({ error, context }),
      ...options,
      auth: {
        verifyToken: (token, { resource }) => {
          resources.push(resource);
          return token === 'good' ? { subject: 'alice', scopes: [] } : null;
        },
        authorizationServers: [ISSUER],
        ...options.auth,
      },
    }),
  );
  host = await serveApp(app, EXPRESS_5, { listen });
  return host;
}

const metadataOf = (reply: Reply) => ({ status: reply.status, body: reply.json });

describe('a server that listens on loopback', () => {
  it('takes the audience from a loopback Host, which the host check let through', async () => {
    const served = await start({});

    const reply = await served.post(notes, LIST, { authorization: 'Bearer good' });

    expect(reply.status).toBe(200);
    expect(resources).toEqual([`${served.url}/mcp/server/${notes}/mcp`]);
  });

  it('behind a trusted proxy, a forwarded host not in allowedHosts: 403, and no token is checked against it', async () => {
    const served = await start({}, '127.0.0.1', (app) => app.set('trust proxy', 'loopback'));

    const reply = await served.post(notes, LIST, {
      authorization: 'Bearer good',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    const metadata = await served.send({
      method: 'GET',
      path: `${WELL_KNOWN}/mcp/server/${notes}/mcp`,
      headers: { 'x-forwarded-host': 'evil.example' },
    });

    expect({ status: reply.status, body: reply.json, challenge: reply.headers['www-authenticate'] }).toEqual({
      status: 403,
      body: {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message:
            "Forbidden: host not allowed: evil.example; a token's audience is taken only from a host listed in allowedHosts",
        },
      },
      challenge: undefined,
    });
    expect(metadataOf(metadata)).toEqual({
      status: 403,
      body: {
        error: 'forbidden',
        error_description:
          "Forbidden: host not allowed: evil.example; a token's audience is taken only from a host listed in allowedHosts",
      },
    });
    expect(resources).toEqual([]);
  });
});

describe('a server that listens on every interface (not loopback)', () => {
  it('without auth.resourceBaseUrl nor allowedHosts: its "oauth" servers answer 500 and onError names the option; "code" servers still serve', async () => {
    const served = await start({}, '0.0.0.0');

    const refused = await served.post(notes, LIST, { authorization: 'Bearer good', host: 'evil.example' });
    const metadata = await served.send({ method: 'GET', path: `${WELL_KNOWN}/mcp/server/${notes}/mcp` });
    const plain = await served.post(open, LIST);

    expect({ status: refused.status, body: refused.json }).toEqual({
      status: 500,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
    });
    expect(metadataOf(metadata)).toEqual({
      status: 500,
      body: { error: 'server_error', error_description: 'Internal error' },
    });
    expect(plain.status).toBe(200);
    expect(resources).toEqual([]);
    expect(errors.map(({ error, context }) => [error instanceof ConfigurationError, context.phase])).toEqual([
      [true, 'authenticate'],
      [true, 'authenticate'],
    ]);
    expect((errors[0]?.error as Error | undefined)?.message).toBe(
      'mcpServer: an "oauth" server needs auth.resourceBaseUrl (or allowedHosts) when the HTTP server does not listen on a loopback address: the Host header is not checked there, and the audience of its tokens cannot be taken from it',
    );
  });

  it('with allowedHosts: the audience from a listed Host; any other Host is 403 before the token is read', async () => {
    const served = await start({ allowedHosts: ['127.0.0.1'] }, '0.0.0.0');

    const listed = await served.post(notes, LIST, { authorization: 'Bearer good' });
    const other = await served.post(notes, LIST, { authorization: 'Bearer good', host: 'evil.example' });

    expect(listed.status).toBe(200);
    expect(other.status).toBe(403);
    expect(resources).toEqual([`${served.url}/mcp/server/${notes}/mcp`]);
  });

  it('with auth.resourceBaseUrl: that URL, canonical, whatever the Host', async () => {
    const served = await start({ auth: { resourceBaseUrl: 'HTTPS://MCP.Example.com:443/Api/' } }, '0.0.0.0');
    const resource = `https://mcp.example.com/Api/mcp/server/${notes}/mcp`;

    const reply = await served.post(notes, LIST, { host: 'evil.example' });
    const accepted = await served.post(notes, LIST, { authorization: 'Bearer good', host: 'evil.example' });
    const metadata = await served.send({
      method: 'GET',
      path: `${WELL_KNOWN}/mcp/server/${notes}/mcp`,
      headers: { host: 'evil.example' },
    });

    expect({ status: reply.status, challenge: reply.headers['www-authenticate'] }).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="https://mcp.example.com${WELL_KNOWN}/Api/mcp/server/${notes}/mcp"`,
    });
    expect(accepted.status).toBe(200);
    expect(resources).toEqual([resource]);
    expect(metadataOf(metadata)).toEqual({
      status: 200,
      body: { resource, authorization_servers: [ISSUER], bearer_methods_supported: ['header'] },
    });
  });
});

describe('the metadata document', () => {
  it("names the canonical resource, not the requested path's spelling", async () => {
    const served = await start({});

    const replies = await Promise.all(
      [
        `${WELL_KNOWN}/MCP/Server/${notes}/MCP`,
        `${WELL_KNOWN}/mcp/server/${notes}/mcp/`,
        `${WELL_KNOWN.toUpperCase()}/mcp/SERVER/${notes}/mcp/`,
      ].map((path) => served.send({ method: 'GET', path, headers: { host: `LOCALHOST:${served.port}` } })),
    );

    for (const reply of replies) {
      expect(metadataOf(reply)).toEqual({
        status: 200,
        body: {
          resource: `http://localhost:${served.port}/mcp/server/${notes}/mcp`,
          authorization_servers: [ISSUER],
          bearer_methods_supported: ['header'],
        },
      });
    }
  });
});

describe('auth.resourceBaseUrl', () => {
  it('must be an http or https URL without query or fragment', () => {
    const build = (resourceBaseUrl: string) => () =>
      mcpServer({
        resolveServer: async () => null,
        runApp: () => ({ outputs: {} }),
        auth: { verifyToken: () => null, authorizationServers: [ISSUER], resourceBaseUrl },
      });

    expect(build('mcp.example.com')).toThrow(
      'mcpServer: invalid option "auth.resourceBaseUrl": must be an http or https URL',
    );
    expect(build('https://mcp.example.com/?a=1')).toThrow(
      'mcpServer: invalid option "auth.resourceBaseUrl": must have no query or fragment',
    );
    expect(build('https://mcp.example.com')).not.toThrow();
  });
});
