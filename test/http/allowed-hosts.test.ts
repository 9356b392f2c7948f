/**
 * `allowedHosts` takes host names, as `@modelcontextprotocol/express` does (its option of the same
 * name): any port is allowed for a listed name. Origins and `host:port` entries, which earlier
 * lists may hold, still work: an origin counts as its host, and a port, when one is named, allows
 * that port only. Anything else is refused when the router is made.
 */
import { describe, expect, it } from 'vitest';
import { allowedHostname } from '../../src/endpoint/allowed-hosts.js';
import { ConfigurationError, type McpServerOptions, mcpServer } from '../../src/index.js';
import { createWorld } from '../helpers/apps.js';
import { itMaps } from '../helpers/common.js';
import { type HostVariant, hostVariants, worldHostFor } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

describe('an allowedHosts entry is the Host value it allows', () => {
  itMaps('%s -> %s', allowedHostname, [
    ['mcp.example.com', 'mcp.example.com'],
    ['MCP.Example.COM', 'mcp.example.com'],
    ['mcp.example.com:8443', 'mcp.example.com:8443'],
    ['https://mcp.example.com', 'mcp.example.com'],
    ['http://mcp.example.com:8080', 'mcp.example.com:8080'],
    ['https://mcp.example.com:443', 'mcp.example.com'],
    ['https://mcp.example.com/', 'mcp.example.com'],
    ['[::1]', '[::1]'],
    ['[::1]:3000', '[::1]:3000'],
    ['http://[2001:db8::1]:8080', '[2001:db8::1]:8080'],
    ['10.0.0.5', '10.0.0.5'],
    ['  mcp.example.com  ', 'mcp.example.com'],
  ]);

  it.each([
    ['empty', ''],
    ['a path', 'mcp.example.com/mcp'],
    ['an origin with a path', 'https://mcp.example.com/mcp'],
    ['credentials', 'https://user:secret@mcp.example.com'],
    ['a query', 'https://mcp.example.com?x=1'],
    ['a space inside', 'mcp example.com'],
    ['a port out of range', 'mcp.example.com:70000'],
    ['no host', 'https://'],
  ])('%s is not an entry', (_label, entry) => {
    expect(allowedHostname(entry)).toBeNull();
  });

  it('the router refuses a bad entry when it is made, naming it', () => {
    const options: McpServerOptions = {
      resolveServer: async () => null,
      runApp: () => ({ answer: '' }),
      allowedHosts: ['mcp.example.com', 'https://mcp.example.com/mcp'],
    };
    expect(() => mcpServer(options)).toThrow(ConfigurationError);
    expect(() => mcpServer(options)).toThrow(
      'mcpServer: invalid option "allowedHosts.1": "https://mcp.example.com/mcp" is not a host name (mcp.example.com) or an origin (https://mcp.example.com)',
    );
  });
});

describe('a loopback listener behind a reverse proxy, its allowedHosts in every form', () => {
  const variant = hostVariants[0] as HostVariant;
  const suite = worldHostFor(variant, createWorld, {
    allowedHosts: ['mcp.example.com', 'https://API.example.org', 'proxy.example.net:8443'],
  });

  const ping = (hostHeader: string) =>
    suite.host.post(suite.world.codes.textStats, request('p', 'ping'), { host: hostHeader });

  it.each([
    'mcp.example.com',
    'mcp.example.com:9999',
    'api.example.org',
    'api.example.org:443',
    'proxy.example.net:8443',
  ])(
    'Host %s is served: the name is listed (with this port, when the entry names one)',
    async (hostHeader) => {
      expectRpcReply(await ping(hostHeader), 200, rpcResult('p', {}));
    },
  );

  it.each([
    'evil.example',
    'mcp.example.com.evil.example',
    'example.com',
    'proxy.example.net:1234',
    'proxy.example.net',
  ])('Host %s answers 403', async (hostHeader) => {
    expectRpcReply(
      await ping(hostHeader),
      403,
      rpcError(
        null,
        -32600,
        `Host not allowed: ${hostHeader}. A reverse proxy that forwards other host names must list them in the allowedHosts option`,
      ),
    );
  });
});
