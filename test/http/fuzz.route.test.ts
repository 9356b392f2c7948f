/**
 * Property-based fuzzing of the MCP route over a real socket (fast-check): requests a careless or
 * hostile client could send — any method, path, header values, content codings, bodies that are
 * not JSON, JSON that is not JSON-RPC, messages with odd ids, params and arguments, batches, deep
 * nesting, both eras — and the contract every reply must keep (docs/http-contract.md,
 * "Every reply"):
 *
 * - it is an empty 202 (or the empty 204 of an answered CORS preflight), or a JSON-RPC envelope
 *   (or, for a batch, an array of them) with `Content-Type: application/json`;
 * - never a 5xx, and nothing reaches `onError`: client input is never an internal failure;
 * - a reply id that is not null is the request's id exactly (same value, same type), and a 200
 *   always carries it.
 *
 * The number of cases is bounded so the suite stays a few seconds long; fast-check prints the seed
 * and the shrunk counterexample of a failure.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostApp } from '../../src/index.js';
import { type DemoHost, startEchoHost } from '../helpers/apps.js';
import type { Headers, OutgoingRequest, Reply } from '../helpers/hosts.js';

const RUNS = 2_500;
const ALLOWED_ORIGIN = 'https://app.example.com';
const MODERN = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

const APPS: HostApp[] = [
  {
    id: 'forms',
    name: 'Forms',
    mode: 'workflow',
    inputForm: [
      { type: 'text-input', variable: 'title', required: true, max_length: 20 },
      { type: 'number', variable: 'count' },
      { type: 'checkbox', variable: 'flag' },
      { type: 'select', variable: 'mood', options: ['calm', 'busy'] },
      { type: 'json_object', variable: 'free' },
      {
        type: 'json_object',
        variable: 'shaped',
        json_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      },
      { type: 'paragraph', variable: '__proto__' },
    ],
    outputs: [{ variable: 'inputs', type: 'object' }],
  },
  {
    id: 'chat',
    name: 'Chat',
    mode: 'chat',
    inputForm: [{ type: 'select', variable: 'tone', options: ['plain', 'friendly'] }],
  },
  { id: 'completion', name: 'Completion', mode: 'completion', inputForm: [] },
];
const TOOL_NAMES = ['Forms', 'Chat', 'Completion'];
const VARIABLES = [
  'title',
  'count',
  'flag',
  'mood',
  'free',
  'shaped',
  '__proto__',
  'query',
  'tone',
  'constructor',
];
const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'server/discover',
  'resources/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/unknown',
];

let apps: DemoHost;
const codes = () => Object.values(apps.codes);
beforeAll(async () => {
  apps = await startEchoHost(APPS, { allowedOrigins: [ALLOWED_ORIGIN], maxBodyBytes: 256 * 1024 });
});
afterAll(() => apps.close());

// ---- generators ------------------------------------------------------------------------------

const text = fc.string({ maxLength: 12 });
const id = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 1_000 }) },
  { weight: 4, arbitrary: text },
  fc.constantFrom(0, '', '0', null, 1.5, -0, 2 ** 53, true, { a: 1 }, [1]),
);
const json = fc.jsonValue({ maxDepth: 3 });
/** `{"a":…}` nested `depth` levels, as text (deep enough to matter, never recursed over here). */
const deepText = fc
  .oneof(fc.integer({ min: 1, max: 150 }), fc.integer({ min: 2_000, max: 5_000 }))
  .map((depth) => `${'{"a":'.repeat(depth - 1)}{"a":"x\\u0000"}${'}'.repeat(depth - 1)}`);

const modernMeta = fc.record(
  {
    [META_VERSION]: fc.oneof(fc.constant(MODERN), fc.constantFrom('2025-11-25', 'bogus'), json),
    [META_CAPABILITIES]: fc.oneof(fc.constant({}), json),
  },
  { requiredKeys: [] },
);

const args = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom(...VARIABLES), text), json, { maxKeys: 6 }),
  json,
);
const params = fc.oneof(
  fc.record(
    {
      name: fc.oneof(fc.constantFrom(...TOOL_NAMES), json),
      arguments: args,
      protocolVersion: fc.oneof(fc.constantFrom('2024-11-05', '2025-06-18', '2025-11-25', MODERN), json),
      capabilities: json,
      clientInfo: fc.oneof(fc.record({ name: text, version: text }), json),
      requestId: id,
      cursor: json,
      _meta: fc.oneof(modernMeta, json),
    },
    { requiredKeys: [] },
  ),
  json,
);
const message = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, fc.constantFrom('1.0', 2, null)),
    id,
    method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS) }, text, json),
    params,
  },
  { requiredKeys: [] },
);

/**
 * A body as text, and what the endpoint reads from it (`-0` is sent as `0`); `forApp` when the body
 * is meant for one app's server (a call of its tool).
 */
type Body = { raw: string; sent: unknown; forApp?: number };
const asSent = (value: unknown): Body => {
  const raw = JSON.stringify(value) ?? '';
  return { raw, sent: raw === '' ? undefined : JSON.parse(raw) };
};
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 10, arbitrary: message.map(asSent) },
  {
    weight: 2,
    arbitrary: fc.array(message, { maxLength: 4 }).map(asSent),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(id, deepText).map(([callId, config]) => {
      const raw = `{"jsonrpc":"2.0","id":${JSON.stringify(callId)},"method":"tools/call","params":{"name":"Forms","arguments":{"title":"t","free":${config},"shaped":${config}}}}`;
      return { raw, sent: { id: JSON.parse(JSON.stringify(callId)) }, forApp: 0 };
    }),
  },
  { weight: 1, arbitrary: json.map(asSent) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((raw) => ({ raw, sent: undefined })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', '\ufeff{}', '{"jsonrpc":', 'null', '[]')
      .map((raw) => ({ raw, sent: undefined })),
  },
);

const headerValue = (values: (string | undefined)[]) => fc.constantFrom(...values);
const printable = fc.string({ maxLength: 20 }).map((value) => value.trim());

interface Case {
  method: string;
  where: 'path' | 'bearer' | 'unknown' | 'odd';
  codeIndex: number;
  oddCode: string;
  body: Body;
  gzip: boolean;
  /** `modern`: the headers a 2026-07-28 client derives from the body. */
  headers: Headers | 'modern';
}

/** Header values a careless or hostile client sends; the others are a real client's (`{}`). */
const fuzzedHeaders: fc.Arbitrary<Headers> = fc.record({
  'content-type': headerValue([
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'application/json; charset=latin1',
    'text/plain',
    undefined,
  ]),
  accept: headerValue([
    'application/json, text/event-stream',
    'application/json',
    '*/*',
    'text/html',
    'application/json;q=0',
    '',
    undefined,
  ]),
  'mcp-protocol-version': headerValue([
    undefined,
    undefined,
    '2024-11-05',
    '2025-03-26',
    '2025-06-18',
    '2025-11-25',
    MODERN,
    'bogus',
    '',
  ]),
  'mcp-method': fc.oneof(
    headerValue([undefined, undefined, 'tools/call', 'tools/list', 'server/discover']),
    printable,
  ),
  'mcp-name': fc.oneof(
    headerValue([undefined, undefined, ...TOOL_NAMES, '=?base64?Rm9ybXM=?=', '=?base64?%%?=']),
    printable,
  ),
  origin: headerValue([undefined, undefined, undefined, ALLOWED_ORIGIN, 'https://evil.example', 'null']),
  host: headerValue([undefined, undefined, undefined, 'evil.example', '127.0.0.1:1@evil.com', 'localhost']),
  'content-encoding': headerValue([undefined, undefined, undefined, 'identity', 'zstd']),
  'access-control-request-method': headerValue([undefined, 'POST']),
  authorization: headerValue([undefined, 'Bearer ', 'Basic eDp5', 'Bearer NotACode00000000']),
});

const fuzzCase: fc.Arbitrary<Case> = fc.record({
  method: fc.oneof(
    { weight: 12, arbitrary: fc.constant('POST') },
    fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'),
  ),
  where: fc.constantFrom('path', 'path', 'path', 'bearer', 'unknown', 'odd'),
  codeIndex: fc.nat({ max: APPS.length - 1 }),
  // Any segment that is still one path segment of our route ('', '.' and '..' would be another path).
  oddCode: fc
    .oneof(text, fc.constantFrom('%ZZ', '%', 'a%2Fb', '%00', '..%2F'))
    .filter((code) => !['', '.', '..'].includes(code)),
  body,
  gzip: fc.boolean(),
  headers: fc.oneof(
    { weight: 2, arbitrary: fc.constant<Headers | 'modern'>({}) },
    { weight: 1, arbitrary: fc.constant<Headers | 'modern'>('modern') },
    { weight: 2, arbitrary: fuzzedHeaders },
  ),
});

// ---- the contract ----------------------------------------------------------------------------

/** `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` as a 2026-07-28 client sets them from its message. */
function modernHeadersOf(sent: unknown): Headers {
  const { method, params } = (typeof sent === 'object' && sent !== null ? sent : {}) as {
    method?: unknown;
    params?: { name?: unknown };
  };
  const name = typeof params === 'object' && params !== null ? params.name : undefined;
  return {
    'mcp-protocol-version': MODERN,
    'mcp-method': typeof method === 'string' ? method : undefined,
    'mcp-name': typeof name === 'string' ? name : undefined,
  };
}

function toRequest(c: Case): OutgoingRequest {
  const code = codes()[c.body.forApp ?? c.codeIndex] as string;
  const headers: Headers = c.headers === 'modern' ? modernHeadersOf(c.body.sent) : { ...c.headers };
  let path: string;
  if (c.where === 'path') path = apps.host.path(code);
  else if (c.where === 'unknown') path = apps.host.path('Unknown000000000');
  else if (c.where === 'odd') path = apps.host.path(encodeURIComponent(c.oddCode).replace(/%25/g, '%'));
  else {
    path = '/mcp/server/mcp';
    headers.authorization ??= `Bearer ${code}`;
  }
  let raw = Buffer.from(c.body.raw);
  if (c.gzip && headers['content-encoding'] === undefined) {
    raw = gzipSync(raw);
    headers['content-encoding'] = 'gzip';
  }
  const withBody = c.method !== 'GET' && c.method !== 'OPTIONS';
  return { method: c.method, path, headers, ...(withBody ? { body: raw } : {}) };
}

const isId = (value: unknown) => typeof value === 'string' || Number.isInteger(value);

function expectEnvelope(envelope: unknown): { id: unknown } {
  expect(envelope).toBeTypeOf('object');
  const { jsonrpc, id, result, error, ...rest } = envelope as Record<string, unknown>;
  expect(rest).toEqual({});
  expect(jsonrpc).toBe('2.0');
  expect(id === null || isId(id)).toBe(true);
  expect((result === undefined) !== (error === undefined)).toBe(true);
  if (error !== undefined) {
    const { code, message, data, ...others } = error as Record<string, unknown>;
    expect(others).toEqual({});
    expect(Number.isInteger(code)).toBe(true);
    expect(message).toBeTypeOf('string');
    if (data !== undefined) expect(data).not.toBeNull();
  }
  return { id };
}

function checkReply(c: Case, reply: Reply): void {
  expect(reply.status, reply.text).toBeLessThan(500);
  if (reply.status === 202 || reply.status === 204) {
    expect({ text: reply.text, type: reply.headers['content-type'] }).toEqual({ text: '', type: undefined });
    if (reply.status === 204)
      expect([c.method, reply.headers['access-control-allow-origin']]).toEqual(['OPTIONS', ALLOWED_ORIGIN]);
    return;
  }
  expect(reply.headers['content-type']).toBe('application/json');
  const sent = c.body.sent;
  if (Array.isArray(reply.json)) {
    expect(reply.status).toBe(200);
    expect(Array.isArray(sent)).toBe(true);
    const sentIds = (sent as { id?: unknown }[]).map((element) => element?.id);
    for (const element of reply.json) {
      const { id } = expectEnvelope(element);
      if (id !== null) expect(sentIds.some((sentId) => Object.is(sentId, id))).toBe(true);
    }
    return;
  }
  const { id } = expectEnvelope(reply.json);
  const sentId =
    typeof sent === 'object' && sent !== null && !Array.isArray(sent)
      ? (sent as { id?: unknown }).id
      : undefined;
  if (id !== null) expect(Object.is(id, sentId)).toBe(true);
  if (reply.status === 200) expect(Object.is(id, sentId)).toBe(true);
}

describe('fuzzing the MCP route', () => {
  it(`${RUNS} generated requests all get a reply that keeps the contract`, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzCase, async (c) => {
        const reply = await apps.host.send(toRequest(c));
        checkReply(c, reply);
        expect(apps.reports).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
