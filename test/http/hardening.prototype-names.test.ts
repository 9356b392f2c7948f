/**
 * Form variables named like members of `Object.prototype` (`__proto__`, `constructor`,
 * `prototype`) work end to end like any other name (docs/http-contract.md, "The tool"): advertised in `tools/list`,
 * accepted in `tools/call`, and handed to the app as plain keys of its inputs, never as the
 * prototype of anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostApp } from '../../src/index.js';
import { type DemoHost, startEchoHost } from '../helpers/apps.js';
import { expectRpcReply, rpcResult } from '../helpers/rpc.js';

const NAMES = ['__proto__', 'constructor', 'prototype'] as const;

const WORKFLOW: HostApp = {
  id: 'workflow',
  name: 'Workflow',
  mode: 'workflow',
  inputForm: [
    ...NAMES.map((variable) => ({ type: 'text-input' as const, variable, required: true })),
    { type: 'json_object', variable: 'config' },
  ],
};
const CHAT: HostApp = {
  id: 'chat',
  name: 'Chat',
  mode: 'chat',
  inputForm: NAMES.map((variable) => ({ type: 'number' as const, variable, required: true })),
};

/** Written as JSON text: a JavaScript literal would set a prototype instead of a `__proto__` key. */
const WORKFLOW_ARGS =
  '{"__proto__":"p","constructor":"c","prototype":"q","config":{"__proto__":{"polluted":true},"x":1}}';
const CHAT_ARGS = '{"query":"hi","__proto__":1,"constructor":"2","prototype":3}';

const call = (id: number, tool: string, args: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`;

let apps: DemoHost;
beforeAll(async () => {
  apps = await startEchoHost([WORKFLOW, CHAT]);
});
afterAll(() => apps.close());

const version = { 'mcp-protocol-version': '2025-06-18' };

describe('variables named __proto__, constructor and prototype', () => {
  it('are advertised as required properties of the input schema', async () => {
    const reply = await apps.host.post(
      apps.codes.workflow as string,
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      version,
    );
    expect(reply.status).toBe(200);
    const schema = (reply.json as { result: { tools: { inputSchema: unknown }[] } }).result.tools[0]
      ?.inputSchema;
    expect(JSON.stringify(schema)).toBe(
      JSON.stringify({
        type: 'object',
        properties: JSON.parse(
          '{"__proto__":{"type":"string","description":""},"constructor":{"type":"string","description":""},' +
            '"prototype":{"type":"string","description":""},"config":{"type":"object","description":""}}',
        ),
        required: NAMES,
      }),
    );
  });

  it('a workflow receives them as plain keys of its inputs, nested ones included', async () => {
    const reply = await apps.host.post(
      apps.codes.workflow as string,
      call(2, 'Workflow', WORKFLOW_ARGS),
      version,
    );
    const outputs = JSON.parse(`{"inputs":${WORKFLOW_ARGS}}`);
    expectRpcReply(
      reply,
      200,
      rpcResult(2, {
        content: [{ type: 'text', text: `{"inputs":${WORKFLOW_ARGS}}` }],
        structuredContent: outputs,
        isError: false,
      }),
    );
    const inputs = apps.runs.at(-1)?.inputs as Record<string, unknown>;
    expect(NAMES.map((name) => Object.hasOwn(inputs, name))).toEqual([true, true, true]);
    expect(Object.getPrototypeOf(inputs)).toBe(Object.prototype);
    const config = inputs.config as Record<string, unknown>;
    expect(Object.hasOwn(config, '__proto__')).toBe(true);
    expect((config as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('a chat app receives them, coerced by type, beside its query', async () => {
    const reply = await apps.host.post(apps.codes.chat as string, call(3, 'Chat', CHAT_ARGS), version);
    const answer = '{"query":"hi","inputs":{"__proto__":1,"constructor":2,"prototype":3}}';
    expectRpcReply(
      reply,
      200,
      rpcResult(3, {
        content: [{ type: 'text', text: answer }],
        structuredContent: { answer },
        isError: false,
      }),
    );
  });

  it('missing, they are reported by name like any other variable', async () => {
    const reply = await apps.host.post(apps.codes.chat as string, call(4, 'Chat', '{"query":"hi"}'), {
      'mcp-protocol-version': '2025-11-25',
    });
    const text =
      'Invalid arguments for tool Chat: __proto__ is required; constructor is required; prototype is required';
    expectRpcReply(reply, 200, rpcResult(4, { content: [{ type: 'text', text }], isError: true }));
  });
});
