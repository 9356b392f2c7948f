/**
 * Deeply nested arguments (README "Security"): a `json_object` argument nested deeper than
 * `MAX_ARGUMENT_DEPTH` levels is an argument problem (docs/http-contract.md, "The tool", worded by
 * version as in "Version-gated shapes"), whatever its depth, with or without the variable's
 * `json_schema`; it never reaches `onError` and never answers 500. Values up to the limit are
 * accepted as usual.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HostApp } from '../../src/index.js';
import { MAX_ARGUMENT_DEPTH } from '../../src/tool/depth.js';
import { type DemoHost, startEchoHost } from '../helpers/apps.js';
import { expectRpcReply, rpcError, rpcResult } from '../helpers/rpc.js';

const FREE: HostApp = {
  id: 'free',
  name: 'Free',
  mode: 'workflow',
  inputForm: [{ type: 'json_object', variable: 'config', required: true }],
};
const SCHEMA: HostApp = {
  id: 'schema',
  name: 'Schema',
  mode: 'workflow',
  inputForm: [
    {
      type: 'json_object',
      variable: 'config',
      required: true,
      json_schema: { type: 'object', properties: { a: { type: 'object' } }, additionalProperties: true },
    },
  ],
};

/** `{"a":{"a":…1…}}` with `depth` objects, written as text: no recursion on our side either. */
const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`;
/** The same depth made of arrays inside the object argument. */
const nestedArrays = (depth: number) => `{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;

const callText = (id: number, tool: string, config: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{"config":${config}}}}`;

const tooDeep = `config is nested more than ${MAX_ARGUMENT_DEPTH} levels deep`;

let apps: DemoHost;
beforeAll(async () => {
  apps = await startEchoHost([FREE, SCHEMA]);
});
afterAll(() => apps.close());
beforeEach(() => {
  apps.reports.length = 0;
});

describe.each([
  ['without a json_schema', FREE],
  ['with a json_schema', SCHEMA],
])('a json_object argument %s', (_, app) => {
  const post = (body: string, version: string) =>
    apps.host.post(apps.codes[app.id] as string, body, { 'mcp-protocol-version': version });

  it.each([MAX_ARGUMENT_DEPTH + 1, 2_100, 9_700, 100_000])(
    'nested %i levels deep is an argument problem (JSON-RPC -32602 before 2025-11-25)',
    async (depth) => {
      const reply = await post(callText(7, app.name, nested(depth)), '2025-06-18');
      const message = `Invalid arguments for tool ${app.name}: ${tooDeep}`;
      expectRpcReply(reply, 200, rpcError(7, -32602, message, { problems: [tooDeep] }));
      expect(apps.reports).toEqual([]);
    },
  );

  it('nested too deep is an error result from 2025-11-25 (SEP-1303), arrays counted as levels', async () => {
    const reply = await post(callText(8, app.name, nestedArrays(5_000)), '2025-11-25');
    expectRpcReply(
      reply,
      200,
      rpcResult(8, {
        content: [{ type: 'text', text: `Invalid arguments for tool ${app.name}: ${tooDeep}` }],
        isError: true,
      }),
    );
    expect(apps.reports).toEqual([]);
  });

  it(`nested exactly ${MAX_ARGUMENT_DEPTH} levels deep is accepted and reaches the app as sent`, async () => {
    const config = nested(MAX_ARGUMENT_DEPTH);
    const reply = await post(callText(9, app.name, config), '2025-06-18');
    const outputs = { inputs: { config: JSON.parse(config) } };
    expectRpcReply(
      reply,
      200,
      rpcResult(9, {
        content: [{ type: 'text', text: JSON.stringify(outputs) }],
        structuredContent: outputs,
        isError: false,
      }),
    );
    expect(apps.reports).toEqual([]);
  });
});
