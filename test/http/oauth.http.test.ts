/**
 * Per-user access over HTTP, on Express 4 and 5: the canonical resource URL follows `trust proxy`
 * for scheme and host, a router mounted under a prefix names its prefixed URL, the metadata route
 * is reachable from the root with the README's forwarding recipe, and the `auth` option is
 * validated like every other option.
 */
import type { NextFunction, Request, Response } from 'express';
import express5 from 'express';
import express4 from 'express4';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as Package from '../../src/index.js';
import { publishApp } from '../helpers/apps.js';
import { type HostVariant, hostVariants, loadPackage, type Reply, serveApp } from '../helpers/hosts.js';

const NOTES: Package.HostApp = { id: 'notes', name: 'Notes', mode: 'workflow', inputForm: [] };

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

describe.each(hostVariants.filter((variant) => !variant.globalJson))(
  'per-user access on $name',
  (variant: HostVariant) => {
    let pkg: typeof Package;
    let store: Package.ServerStore;
    let code: string;
    /** The resources `verifyToken` was asked about. */
    const resources: string[] = [];

    beforeAll(async () => {
      pkg = await loadPackage(variant.major);
      store = pkg.memoryServerStore();
      const server = await publishApp(store, NOTES, { tenantId: 'acme', authMode: 'oauth' });
      code = server.serverCode;
    });

    const router = (options: Partial<Package.McpServerOptions> = {}) =>
      pkg.mcpServer({
        ...options,
        resolveServer: store.resolver(() => NOTES),
        runApp: () => ({ outputs: {} }),
        auth: {
          verifyToken: (token, { resource }) => {
            resources.push(resource);
            return token === 'good' ? { subject: 'alice', scopes: [] } : null;
          },
          authorizationServers: ['https://idp.example.com/realms/acme'],
        },
      });

    async function serve(build: (app: express5.Express) => void) {
      const app = (variant.major === 4 ? express4() : express5()) as express5.Express;
      build(app);
      return serveApp(app, variant);
    }

    it('behind a trusted proxy, the resource and its metadata are the public https URLs', async () => {
      const host = await serve((app) => {
        app.set('trust proxy', 'loopback');
        // The forwarded host is the audience only once it is checked.
        app.use(router({ allowedHosts: ['mcp.example.com'] }));
      });
      try {
        const forwarded = {
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'MCP.Example.com, proxy.internal',
        };
        const reply = await host.post(code, LIST, forwarded);
        expect(reply.status).toBe(401);
        expect(reply.headers['www-authenticate']).toBe(
          `Bearer resource_metadata="https://mcp.example.com${WELL_KNOWN}/mcp/server/${code}/mcp"`,
        );
        resources.length = 0;
        expect((await host.post(code, LIST, { ...forwarded, authorization: 'Bearer good' })).status).toBe(
          200,
        );
        expect(resources).toEqual([`https://mcp.example.com/mcp/server/${code}/mcp`]);
        const metadata = await host.send({
          method: 'GET',
          path: `${WELL_KNOWN}/mcp/server/${code}/mcp`,
          headers: forwarded,
        });
        expect(metadata.json).toEqual({
          resource: `https://mcp.example.com/mcp/server/${code}/mcp`,
          authorization_servers: ['https://idp.example.com/realms/acme'],
          bearer_methods_supported: ['header'],
        });
      } finally {
        await host.close();
      }
    });

    it('without trust proxy, forwarded headers are ignored', async () => {
      const host = await serve((app) => app.use(router()));
      try {
        const reply = await host.post(code, LIST, {
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'evil.example',
        });
        expect(reply.headers['www-authenticate']).toBe(
          `Bearer resource_metadata="${host.url}${WELL_KNOWN}/mcp/server/${code}/mcp"`,
        );
      } finally {
        await host.close();
      }
    });

    it('under a prefix, the resource is prefixed, and the README recipe serves its metadata from the root', async () => {
      const host = await serve((app) => {
        const mcp = router();
        app.use('/api', mcp);
        // The recipe of the README: RFC 9728 puts the metadata at the root, before the resource's path.
        app.get(
          `${WELL_KNOWN}/api/mcp/server/:code/mcp`,
          (req: Request, res: Response, next: NextFunction) => {
            req.url = req.url.replace(`${WELL_KNOWN}/api/`, `${WELL_KNOWN}/`);
            mcp(req, res, next);
          },
        );
      });
      try {
        const reply = await host.send({ path: `/api/mcp/server/${code}/mcp`, body: LIST });
        const metadataPath = `${WELL_KNOWN}/api/mcp/server/${code}/mcp`;
        expect(reply.headers['www-authenticate']).toBe(
          `Bearer resource_metadata="${host.url}${metadataPath}"`,
        );
        const metadata = await host.send({ method: 'GET', path: metadataPath });
        expect(metadata.status).toBe(200);
        expect(metadata.json).toMatchObject({ resource: `${host.url}/api/mcp/server/${code}/mcp` });
      } finally {
        await host.close();
      }
    });

    /** The whole reply of the metadata route for the notes server, whose resource is `resource`. */
    function expectMetadata(reply: Reply, resource: string) {
      expect({
        status: reply.status,
        type: reply.headers['content-type'],
        cacheControl: reply.headers['cache-control'],
        allowOrigin: reply.headers['access-control-allow-origin'],
        body: reply.json,
      }).toEqual({
        status: 200,
        type: 'application/json',
        cacheControl: 'no-store',
        allowOrigin: '*',
        body: {
          resource,
          authorization_servers: ['https://idp.example.com/realms/acme'],
          bearer_methods_supported: ['header'],
        },
      });
    }

    it('the metadata route, reached whatever the case of the well-known prefix, names the resource after it (RFC 9728 §3.3)', async () => {
      const host = await serve((app) => app.use(router()));
      try {
        for (const prefix of [WELL_KNOWN.toUpperCase(), '/.Well-Known/OAuth-Protected-Resource']) {
          const reply = await host.send({ method: 'GET', path: `${prefix}/mcp/server/${code}/mcp` });
          expectMetadata(reply, `${host.url}/mcp/server/${code}/mcp`);
        }
      } finally {
        await host.close();
      }
    });

    it("a host that forwards a URL without the well-known prefix to the metadata route gets the server's own URL", async () => {
      const host = await serve((app) => {
        const mcp = router();
        app.use(mcp);
        app.get('/server-metadata/:code', (req: Request, res: Response, next: NextFunction) => {
          req.url = `${WELL_KNOWN}/mcp/server/${req.params.code}/mcp`;
          mcp(req, res, next);
        });
      });
      try {
        const reply = await host.send({ method: 'GET', path: `/server-metadata/${code}` });
        expectMetadata(reply, `${host.url}/mcp/server/${code}/mcp`);
      } finally {
        await host.close();
      }
    });
  },
);

describe('the auth option', () => {
  const base = { resolveServer: async () => null, runApp: () => ({ answer: '' }) };
  const auth = { verifyToken: () => null, authorizationServers: ['https://idp.example.com'] };
  const build = async (options: unknown) => {
    const pkg = await loadPackage(5);
    return () => pkg.mcpServer(options as Package.McpServerOptions);
  };

  it('is checked at factory time, naming what is wrong', async () => {
    const cases: [unknown, string][] = [
      [
        { ...auth, verifyToken: 'yes' },
        'mcpServer: invalid option "auth.verifyToken": verifyToken must be a function',
      ],
      [
        { ...auth, authorizationServers: [] },
        'mcpServer: invalid option "auth.authorizationServers": must name at least one authorization server',
      ],
      [
        { ...auth, authorizationServers: ['idp.example.com'] },
        'mcpServer: invalid option "auth.authorizationServers.0": must be an http or https URL',
      ],
      [
        { ...auth, requiredScopes: ['a b'] },
        'mcpServer: invalid option "auth.requiredScopes.0": must be a scope token (no spaces or quotes)',
      ],
      [{ ...auth, scope: 'x' }, 'mcpServer: unknown option "auth.scope"'],
    ];
    for (const [options, message] of cases) {
      expect(await build({ ...base, auth: options })).toThrow(message);
    }
    expect(await build({ ...base, auth })).not.toThrow();
  });
});
