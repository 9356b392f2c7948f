/**
 * docs/http-contract.md, rows 2 and 3: browser origins and DNS rebinding, on real listening servers. The `Host`
 * check depends on where the host's HTTP server listens: on a loopback address (127.0.0.1, ::1)
 * only loopback names (or `allowedHosts`) may reach it; on a wildcard address (0.0.0.0, ::) the
 * host is exposed on purpose and `Host` is not checked.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createWorld, UNKNOWN_CODE, type World } from '../helpers/apps.js';
import { type Headers, type Host, hostVariants, loadWorld, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const ALLOWED_ORIGIN = 'https://app.example.com';
const ALLOWED_HOST = 'mcp.example.com';

const originRefused = (origin: string) =>
  rpcError(
    null,
    -32600,
    `Origin not allowed: ${origin}. Pages of other origins must be listed in the allowedOrigins option`,
  );
const hostRefused = (host: string) =>
  rpcError(
    null,
    -32600,
    `Host not allowed: ${host}. A reverse proxy that forwards other host names must list them in the allowedHosts option`,
  );

describe.each(hostVariants)('browser and rebinding guards on $name', (variant) => {
  let world: World;
  /** Listens on 127.0.0.1 with no extra allowance. */
  let loopback: Host;
  /** Listens on 127.0.0.1 behind a "reverse proxy": `allowedHosts` and `allowedOrigins` set. */
  let proxied: Host;
  /** Listens on ::1. */
  let loopback6: Host;
  /** Listens on 0.0.0.0: exposed on purpose. */
  let wildcard: Host;
  /** Listens on ::, the IPv6 (and usually dual-stack) wildcard. */
  let wildcard6: Host;

  beforeAll(async () => {
    const { pkg, world: loaded } = await loadWorld(variant, createWorld);
    world = loaded;
    loopback = await startHost(variant, pkg, world.options());
    proxied = await startHost(
      variant,
      pkg,
      world.options({ allowedHosts: [ALLOWED_HOST], allowedOrigins: [ALLOWED_ORIGIN] }),
    );
    loopback6 = await startHost(variant, pkg, world.options(), { listen: '::1' });
    wildcard = await startHost(variant, pkg, world.options(), { listen: '0.0.0.0' });
    wildcard6 = await startHost(variant, pkg, world.options(), { listen: '::' });
  });
  afterAll(async () => {
    await Promise.all([loopback, proxied, loopback6, wildcard, wildcard6].map((host) => host?.close()));
  });

  const ping = (host: Host, headers: Headers, code = world.codes.textStats) =>
    host.post(code, request('p', 'ping'), headers);
  const served = rpcResult('p', {});

  describe('row 2: Origin', () => {
    it('a request without Origin (a non-browser client) is served', async () => {
      expectRpcReply(await ping(loopback, {}), 200, served);
    });

    it("the page's own origin is served", async () => {
      const own = `http://127.0.0.1:${loopback.port}`;
      expectRpcReply(await ping(loopback, { origin: own }), 200, served);
      expectRpcReply(
        await ping(loopback, {
          host: `localhost:${loopback.port}`,
          origin: `http://localhost:${loopback.port}`,
        }),
        200,
        served,
      );
    });

    it.each([
      ['a foreign site', 'https://evil.example'],
      ['the literal null origin of sandboxed pages and files', 'null'],
      ['the same host on another port', 'http://127.0.0.1:1'],
      ['the same host and port over https', 'https://127.0.0.1:PORT'],
    ])('%s answers 403 with a JSON-RPC error', async (_label, template) => {
      const origin = template.replace('PORT', String(loopback.port));
      expectRpcReply(await ping(loopback, { origin }), 403, originRefused(origin));
    });

    it('an origin listed in allowedOrigins is served, whatever its case', async () => {
      expectRpcReply(await ping(proxied, { origin: ALLOWED_ORIGIN }), 200, served);
      expectRpcReply(await ping(proxied, { origin: 'HTTPS://App.Example.com' }), 200, served);
    });

    it('allowedOrigins allows exactly what it lists', async () => {
      const origin = 'https://other.example.com';
      expectRpcReply(await ping(proxied, { origin }), 403, originRefused(origin));
    });

    it('a foreign origin is refused on a wildcard listener too', async () => {
      expectRpcReply(
        await ping(wildcard, { origin: 'https://evil.example' }),
        403,
        originRefused('https://evil.example'),
      );
    });

    it('the origin is checked before the server code is looked up', async () => {
      const reply = await ping(loopback, { origin: 'https://evil.example' }, UNKNOWN_CODE);
      expectRpcReply(reply, 403, originRefused('https://evil.example'));
    });
  });

  describe('row 3: DNS rebinding on a loopback listener', () => {
    it.each([
      ['localhost with the port', 'localhost:PORT'],
      ['localhost without a port', 'localhost'],
      ['127.0.0.1 with the port', '127.0.0.1:PORT'],
      ['[::1] with the port', '[::1]:PORT'],
      ['localhost in capitals', 'LOCALHOST:PORT'],
    ])('Host %s is served', async (_label, template) => {
      const host = template.replace('PORT', String(loopback.port));
      expectRpcReply(await ping(loopback, { host }), 200, served);
    });

    it.each([
      ['a foreign name', 'evil.example'],
      ['a foreign name with the port', 'evil.example:PORT'],
      ['a name that starts like localhost', 'localhost.evil.example:PORT'],
      ['a name that starts like 127.0.0.1', '127.0.0.1.evil.example'],
      ['a LAN address', '192.168.1.20:PORT'],
    ])('Host %s answers 403 and names the allowedHosts option', async (_label, template) => {
      const host = template.replace('PORT', String(loopback.port));
      expectRpcReply(await ping(loopback, { host }), 403, hostRefused(host));
    });

    it('a rebinding page whose Origin matches its own Host still answers 403', async () => {
      const reply = await ping(loopback, { host: 'evil.example', origin: 'http://evil.example' });
      expectRpcReply(reply, 403, hostRefused('evil.example'));
    });

    it('a host listed in allowedHosts is served, with or without a port', async () => {
      expectRpcReply(await ping(proxied, { host: ALLOWED_HOST }), 200, served);
      expectRpcReply(await ping(proxied, { host: `${ALLOWED_HOST}:8443` }), 200, served);
      expectRpcReply(
        await ping(proxied, { host: ALLOWED_HOST, origin: `http://${ALLOWED_HOST}` }),
        200,
        served,
      );
    });

    it('allowedHosts allows exactly what it lists', async () => {
      expectRpcReply(await ping(proxied, { host: 'evil.example' }), 403, hostRefused('evil.example'));
    });

    it('the ::1 listener is checked the same way', async () => {
      expectRpcReply(await ping(loopback6, { host: `[::1]:${loopback6.port}` }), 200, served);
      expectRpcReply(await ping(loopback6, { host: 'evil.example' }), 403, hostRefused('evil.example'));
    });

    it('the host is checked before the server code is looked up', async () => {
      const reply = await ping(loopback, { host: 'evil.example' }, UNKNOWN_CODE);
      expectRpcReply(reply, 403, hostRefused('evil.example'));
    });
  });

  describe('row 3 does not apply to a wildcard listener', () => {
    it('0.0.0.0: any Host is served', async () => {
      expectRpcReply(await ping(wildcard, { host: 'evil.example' }), 200, served);
      expectRpcReply(await ping(wildcard, { host: `mcp.example.org:${wildcard.port}` }), 200, served);
    });

    it('::, any Host is served', async () => {
      expectRpcReply(await ping(wildcard6, { host: 'evil.example' }), 200, served);
    });
  });
});
