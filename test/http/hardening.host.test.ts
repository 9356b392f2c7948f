/**
 * docs/http-contract.md row 3 with `Host` values read as RFC 9110 §7.2 defines them (`uri-host [ ":" port ]`,
 * RFC 3986 §3.2.2): a value that only starts like a loopback name, or that is not a host at all
 * (user info, a path, a bad port), is not loopback and answers 403 on a loopback listener.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type DemoHost, startEchoHost } from '../helpers/apps.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const ALLOWED_HOST = 'mcp.example.com';
const hostRefused = (host: string) =>
  rpcError(
    null,
    -32600,
    `Host not allowed: ${host}. A reverse proxy that forwards other host names must list them in the allowedHosts option`,
  );

let apps: DemoHost;
beforeAll(async () => {
  apps = await startEchoHost([{ id: 'a', name: 'A', mode: 'workflow', inputForm: [] }], {
    allowedHosts: [ALLOWED_HOST, 'api.example.com:8443'],
  });
});
afterAll(() => apps.close());

const ping = (host: string) => apps.host.post(apps.codes.a as string, request('p', 'ping'), { host });

describe('Host values are parsed as hosts on a loopback listener', () => {
  it.each([
    ['user info before a foreign host', '127.0.0.1:PORT@evil.com'],
    ['user info without a port', 'localhost@evil.com'],
    ['[::1] as user info', '[::1]:PORT@evil.com'],
    ['a path after the loopback', '127.0.0.1:PORT/evil.com'],
    ['a query after the loopback', 'localhost?evil.com'],
    ['a fragment after the loopback', 'localhost#evil.com'],
    ['a port that is not a number', 'localhost:evil.com'],
    ['two ports', '127.0.0.1:PORT:80'],
    ['a backslash', 'localhost\\evil.com'],
    ['an IPv6 literal that is not one', '[::1x]:PORT'],
    ['an unclosed IPv6 literal', '[::1'],
    ['text after an IPv6 literal', '[::1]evil.com'],
    ['an allowed host as user info', `${ALLOWED_HOST}@evil.com`],
    ['an allowed host with a path', `${ALLOWED_HOST}/x`],
  ])('%s is not loopback: 403', async (_, template) => {
    const host = template.replace('PORT', String(apps.host.port));
    expectRpcReply(await ping(host), 403, hostRefused(host));
  });

  it.each([
    ['127.0.0.1 with its port', '127.0.0.1:PORT'],
    ['localhost in capitals', 'LocalHost:PORT'],
    ['[::1] without a port', '[::1]'],
    ['an allowed host with any port', `${ALLOWED_HOST}:8080`],
    ['an allowed host in capitals', 'MCP.Example.com'],
    ['an allowed host and port', 'api.example.com:8443'],
  ])('%s is served', async (_, template) => {
    const host = template.replace('PORT', String(apps.host.port));
    expectRpcReply(await ping(host), 200, rpcResult('p', {}));
  });

  it('a host allowed only with its port is refused on another port', async () => {
    expectRpcReply(await ping('api.example.com:9999'), 403, hostRefused('api.example.com:9999'));
  });
});
