/**
 * Browser clients of an origin listed in `allowedOrigins` (README "Security"): their preflight
 * `OPTIONS` is answered and every reply carries the CORS headers (Fetch standard, "CORS
 * protocol"), so a page of that origin can call the endpoint and read the MCP headers of the
 * reply. Any other origin is refused as before (docs/http-contract.md, row 2), preflight included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHost, startEchoHost } from '../helpers/apps.js';
import type { Reply } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const ALLOWED = 'https://app.example.com';
const FOREIGN = 'https://evil.example';
const UNKNOWN_CODE = 'Unknown000000000';

const ALLOW_HEADERS =
  'Content-Type,Accept,Authorization,MCP-Protocol-Version,Mcp-Session-Id,Mcp-Method,Mcp-Name,Last-Event-ID';
const EXPOSE_HEADERS = 'MCP-Protocol-Version,Mcp-Session-Id,WWW-Authenticate,Retry-After';

let apps: DemoHost;
let path: string;
beforeAll(async () => {
  apps = await startEchoHost([{ id: 'a', name: 'A', mode: 'workflow', inputForm: [] }], {
    allowedOrigins: [ALLOWED],
  });
  path = apps.host.path(apps.codes.a as string);
});
afterAll(() => apps.close());

const preflight = (origin: string | undefined, at = path) =>
  apps.host.send({
    method: 'OPTIONS',
    path: at,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,mcp-protocol-version,authorization',
      'content-type': undefined,
      accept: '*/*',
    },
  });

/** The CORS headers of a reply, and only those (plus `Vary`). */
const corsHeaders = (reply: Reply) =>
  Object.fromEntries(
    Object.entries(reply.headers).filter(([name]) => name.startsWith('access-control-') || name === 'vary'),
  );

/** The CORS headers of an answer (not a preflight) to a page of `origin`. */
const servedTo = (origin: string) => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': EXPOSE_HEADERS,
  vary: 'Origin',
});

const originRefused = (origin: string) =>
  rpcError(
    null,
    -32600,
    `Origin not allowed: ${origin}. Pages of other origins must be listed in the allowedOrigins option`,
  );

describe('CORS for allowedOrigins', () => {
  it('a preflight from an allowed origin is answered 204 with what a browser needs to go on', async () => {
    const reply = await preflight(ALLOWED);
    expect({ status: reply.status, text: reply.text, cors: corsHeaders(reply) }).toEqual({
      status: 204,
      text: '',
      cors: {
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET,POST,DELETE',
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-expose-headers': EXPOSE_HEADERS,
        'access-control-max-age': '86400',
        vary: 'Origin',
      },
    });
  });

  it('a request from an allowed origin is served with the CORS headers, the MCP ones exposed', async () => {
    const reply = await apps.host.post(apps.codes.a as string, request(1, 'ping'), { origin: ALLOWED });
    expectRpcReply(reply, 200, rpcResult(1, {}));
    expect(corsHeaders(reply)).toEqual(servedTo(ALLOWED));
  });

  it('errors to an allowed origin carry the CORS headers too, so the page can read them', async () => {
    const reply = await apps.host.post(UNKNOWN_CODE, request(2, 'ping'), { origin: ALLOWED });
    expectRpcReply(reply, 404, rpcError(2, -32600, 'MCP server not found'));
    expect(corsHeaders(reply)['access-control-allow-origin']).toBe(ALLOWED);
    const get = await apps.host.send({ method: 'GET', path, headers: { origin: ALLOWED } });
    expectRpcReply(get, 405, rpcError(null, -32600, 'Method not allowed: GET; use POST'));
    expect(corsHeaders(get)['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('the header form of the code (POST /mcp/server/mcp) answers preflights the same way', async () => {
    const reply = await preflight(ALLOWED, '/mcp/server/mcp');
    expect(reply.status).toBe(204);
    expect(corsHeaders(reply)).toEqual(corsHeaders(await preflight(ALLOWED)));
    const served = await apps.host.send({
      path: '/mcp/server/mcp',
      body: request(4, 'ping'),
      headers: { origin: ALLOWED, authorization: `Bearer ${apps.codes.a}` },
    });
    expectRpcReply(served, 200, rpcResult(4, {}));
    expect(served.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('the origin is matched whatever its case', async () => {
    const reply = await preflight('HTTPS://App.Example.COM');
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-origin']).toBe('HTTPS://App.Example.COM');
  });

  it('a preflight from another origin answers 403 (row 2) without CORS headers', async () => {
    const reply = await preflight(FOREIGN);
    expectRpcReply(reply, 403, originRefused(FOREIGN));
    expect(corsHeaders(reply)).toEqual({});
  });

  it('a request from another origin answers 403 (row 2) without CORS headers', async () => {
    const reply = await apps.host.post(apps.codes.a as string, request(3, 'ping'), { origin: FOREIGN });
    expectRpcReply(reply, 403, originRefused(FOREIGN));
    expect(corsHeaders(reply)).toEqual({});
  });

  it('OPTIONS without an Origin is no preflight: 405 as every other method (row 1)', async () => {
    const reply = await preflight(undefined);
    expectRpcReply(reply, 405, rpcError(null, -32600, 'Method not allowed: OPTIONS; use POST'));
    expect(reply.headers.allow).toBe('POST');
    expect(corsHeaders(reply)).toEqual({});
  });
});

describe("allowedOrigins: ['*']", () => {
  let any: DemoHost;
  beforeAll(async () => {
    any = await startEchoHost([{ id: 'a', name: 'A', mode: 'workflow', inputForm: [] }], {
      allowedOrigins: ['*'],
    });
  });
  afterAll(() => any.close());

  it('serves a page of any origin, with the CORS headers naming that origin', async () => {
    const reply = await any.host.post(any.codes.a as string, request(1, 'ping'), { origin: FOREIGN });
    expectRpcReply(reply, 200, rpcResult(1, {}));
    expect(corsHeaders(reply)).toEqual(servedTo(FOREIGN));
  });
});

describe('allowedOrigins entries are read as browsers send Origin', () => {
  let defaults: DemoHost;
  beforeAll(async () => {
    defaults = await startEchoHost([{ id: 'a', name: 'A', mode: 'workflow', inputForm: [] }], {
      allowedOrigins: ['https://app.example.com:443', 'HTTP://LOCALHOST:5173'],
    });
  });
  afterAll(() => defaults.close());

  it.each([
    ['the default port, which browsers leave out', 'https://app.example.com'],
    ['a name in capitals', 'http://localhost:5173'],
  ])('%s: %s is allowed', async (_label, origin) => {
    const reply = await defaults.host.post(defaults.codes.a as string, request(1, 'ping'), { origin });
    expectRpcReply(reply, 200, rpcResult(1, {}));
    expect(reply.headers['access-control-allow-origin']).toBe(origin);
  });

  it('another port of a listed host is refused', async () => {
    const origin = 'http://localhost:5174';
    const reply = await defaults.host.post(defaults.codes.a as string, request(2, 'ping'), { origin });
    expectRpcReply(reply, 403, originRefused(origin));
  });
});
