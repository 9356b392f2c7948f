/**
 * End to end, with the official MCP client (`@modelcontextprotocol/sdk` Client over Streamable
 * HTTP): one app of each mode published on a real host on 127.0.0.1, listed and called at protocol
 * 2025-11-25 and at 2024-11-05.
 *
 * The 1.x client always offers its latest version in `initialize`. To speak 2024-11-05 the way an
 * older client does, the transport below rewrites that one field of the `initialize` request; the
 * server then answers 2024-11-05, the client accepts it (it supports that revision) and, through
 * `transport.setProtocolVersion`, sends `MCP-Protocol-Version: 2024-11-05` on every later request.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostApp } from '../../src/types/index.js';
import {
  calcAgent,
  type DemoHost,
  faqBot,
  startDemoHost,
  supportDesk,
  textStats,
  titleCase,
} from '../helpers/apps.js';
import { answeredInConversation } from '../helpers/conversations.js';
import { DEMO_CASES } from '../helpers/demo-cases.js';

/** A transport that asks for a given protocol version in `initialize`, as a client of that era does. */
class VersionedTransport extends StreamableHTTPClientTransport {
  constructor(
    url: URL,
    private readonly requestedVersion: string,
    fetchLike: typeof fetch,
  ) {
    super(url, { fetch: fetchLike });
  }

  override send(message: JSONRPCMessage, options?: Parameters<StreamableHTTPClientTransport['send']>[1]) {
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      const params = { ...message.params, protocolVersion: this.requestedVersion };
      return super.send({ ...message, params }, options);
    }
    return super.send(message, options);
  }
}

/** What the client sent: each POST's JSON-RPC method and its MCP-Protocol-Version header. */
interface Sent {
  method: string;
  version: string | null;
}

interface Connected {
  client: Client;
  transport: VersionedTransport;
  sent: Sent[];
}

let host: DemoHost;
const apps: HostApp[] = [textStats, faqBot, supportDesk, calcAgent, titleCase];

beforeAll(async () => {
  host = await startDemoHost({ apps });
});
afterAll(async () => {
  await host?.close();
});

async function connect(app: HostApp, version: string): Promise<Connected> {
  const sent: Sent[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') {
      const headers = new Headers(init.headers);
      sent.push({
        method: (JSON.parse(init.body) as { method: string }).method,
        version: headers.get('mcp-protocol-version'),
      });
    }
    return fetch(input, init);
  };
  const transport = new VersionedTransport(host.endpointOf(app), version, recordingFetch);
  const client = new Client({ name: 'modes-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, sent };
}

/** The latest run of an app. */
const lastRunOf = (app: HostApp) => host.runs.filter((run) => run.app.id === app.id).at(-1);

const TEXT = 'The cat saw the other cat. The end!';
/** The Text Stats tool as every version lists it (some without the output schema). */
const TEXT_STATS_TOOL = DEMO_CASES.find((demo) => demo.appId === 'text-stats')!.tool;

describe.each([
  { version: '2025-11-25', structured: true },
  { version: '2024-11-05', structured: false },
])('every mode through the official MCP client at $version', ({ version, structured }) => {
  const connections = new Map<string, Connected>();
  const connected = (app: HostApp) => connections.get(app.id)!;
  /** Calls the tool `name` of `app`'s server with `args`, once the tools are listed, as a client does. */
  const callAfterListing = async (app: HostApp, name: string, args: Record<string, unknown>) => {
    const { client } = connected(app);
    await client.listTools();
    return client.callTool({ name, arguments: args });
  };

  beforeAll(async () => {
    for (const app of apps) connections.set(app.id, await connect(app, version));
  });
  afterAll(async () => {
    for (const { client } of connections.values()) await client.close();
  });

  /** The whole result a client reads: text, structuredContent only when the version has it, isError. */
  const expected = (text: string, structuredContent: Record<string, unknown>) =>
    structured
      ? { content: [{ type: 'text', text }], structuredContent, isError: false }
      : { content: [{ type: 'text', text }], isError: false };

  it('initialize settles on the version and later requests carry it in MCP-Protocol-Version', async () => {
    const { transport, sent, client } = connected(faqBot);
    expect(transport.protocolVersion).toBe(version);
    expect(client.getServerVersion()?.name).toBe('express-app-mcp');
    await client.ping();
    expect(sent.find((request) => request.method === 'ping')).toEqual({ method: 'ping', version });
  });

  it('each server lists its one tool with the fields of the version', async () => {
    const { tools } = await connected(textStats).client.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool?.name).toBe('Text_Stats');
    expect(tool?.description).toBe(TEXT_STATS_TOOL.description);
    expect(tool?.inputSchema).toEqual(TEXT_STATS_TOOL.inputSchema);
    if (structured) {
      expect(tool?.title).toBe('Text Stats');
      expect(tool?.outputSchema).toEqual(TEXT_STATS_TOOL.outputSchema);
    } else {
      expect(Object.keys(tool ?? {}).sort()).toEqual(['description', 'inputSchema', 'name']);
    }
  });

  it('workflow: the outputs as compact JSON text, and as structuredContent', async () => {
    const result = await callAfterListing(textStats, 'Text_Stats', { text: TEXT, top_n: '2' });
    const outputs = { word_count: 8, char_count: 35, top_words: ['the', 'cat'] };
    expect(result).toEqual(expected(JSON.stringify(outputs), outputs));
    const run = lastRunOf(textStats);
    expect(run?.inputs).toEqual({ text: TEXT, top_n: 2 });
    expect(run && 'query' in run).toBe(false);
    expect(run?.protocolVersion).toBe(version);
  });

  it('chat: the answer as text, and {answer}', async () => {
    const result = await callAfterListing(faqBot, 'FAQ_Bot', {
      query: 'Can I get a refund?',
      tone: 'friendly',
    });
    const answer = 'Happy to help! You can ask for a full refund within 30 days of your purchase.';
    // The FAQ Bot keeps conversations: a call without a conversation_id starts one and names it.
    expect(result).toEqual(answeredInConversation(answer, undefined, { structured }));
    const run = lastRunOf(faqBot);
    expect({ query: run?.query, inputs: run?.inputs, conversationId: run?.conversationId }).toEqual({
      query: 'Can I get a refund?',
      inputs: { tone: 'friendly' },
      conversationId: undefined,
    });
  });

  it('advanced-chat: a streamed answer, assembled', async () => {
    const result = await callAfterListing(supportDesk, 'Support_Desk', {
      query: 'My invoice is wrong',
      customer_tier: 'pro',
    });
    const answer = '[pro] We received: My invoice is wrong';
    expect(result).toEqual(expected(answer, { answer }));
  });

  it('agent-chat: the message after the thoughts is the answer', async () => {
    const result = await callAfterListing(calcAgent, 'Calculator_Agent', { query: '6 * 7' });
    expect(result).toEqual(expected('42', { answer: '42' }));
  });

  it('agent-chat: an error event is an error result with its message and no structuredContent', async () => {
    const result = await callAfterListing(calcAgent, 'Calculator_Agent', { query: '1 / 0' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'division by zero' }], isError: true });
  });

  it('completion: the answer as text, and {answer}; the run gets an empty query', async () => {
    const result = await callAfterListing(titleCase, 'Title_Case', { text: "the CAT's hat" });
    const answer = "The Cat's Hat";
    expect(result).toEqual(expected(answer, { answer }));
    const run = lastRunOf(titleCase);
    expect({ query: run?.query, inputs: run?.inputs }).toEqual({
      query: '',
      inputs: { text: "the CAT's hat" },
    });
  });

  it('every tools/call carried the version in its MCP-Protocol-Version header', () => {
    const calls = [...connections.values()].flatMap(({ sent }) =>
      sent.filter((request) => request.method === 'tools/call'),
    );
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(new Set(calls.map((request) => request.version))).toEqual(new Set([version]));
  });

  it('arguments that fail the form: problems a model can read, as the version wants them', async () => {
    const { client } = connected(textStats);
    await client.listTools();
    const runsBefore = host.runs.length;
    const text =
      'Invalid arguments for tool Text_Stats: text is required; top_n must be a number; language must be one of en, fr, de';
    const call = client.callTool({ name: 'Text_Stats', arguments: { top_n: 'many', language: 'es' } });
    if (structured) {
      // 2025-11-25 (SEP-1303): a tool result the model can read and correct.
      expect(await call).toEqual({ content: [{ type: 'text', text }], isError: true });
    } else {
      // Before 2025-11-25: a JSON-RPC invalid-params error.
      await expect(call).rejects.toMatchObject({ code: -32602, message: `MCP error -32602: ${text}` });
    }
    expect(host.runs.length).toBe(runsBefore);
  });
});

describe('failures as the official MCP client sees them', () => {
  const slow: HostApp = { id: 'slow', name: 'Slow Chat', mode: 'chat', inputForm: [] };
  const broken: HostApp = { id: 'broken', name: 'Broken Workflow', mode: 'workflow', inputForm: [] };
  const liar: HostApp = {
    id: 'liar',
    name: 'Liar',
    mode: 'workflow',
    inputForm: [],
    outputs: [{ variable: 'total', type: 'number' }],
  };
  const cause = new Error('secret connection string postgres://admin:hunter2@db');
  const signals: AbortSignal[] = [];
  let failing: DemoHost;

  beforeAll(async () => {
    failing = await startDemoHost({
      apps: [slow, broken, liar],
      options: { callTimeoutMs: 50 },
      runApp: (run) => {
        if (run.app.id === 'broken') throw cause;
        if (run.app.id === 'liar') return { outputs: { total: 'many' } };
        signals.push(run.signal);
        // Like a real app: give up as soon as the signal fires.
        return new Promise((_, reject) =>
          run.signal.addEventListener('abort', () => reject(run.signal.reason)),
        );
      },
    });
  });
  afterAll(async () => {
    await failing?.close();
  });

  async function callOnce(app: HostApp, args: Record<string, unknown>) {
    const client = new Client({ name: 'modes-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(failing.endpointOf(app)));
    try {
      await client.listTools();
      return await client.callTool({ name: app.name.replace(/ /g, '_'), arguments: args });
    } finally {
      await client.close();
    }
  }

  it('a run that outlives callTimeoutMs is aborted through its signal and reported as not finished', async () => {
    const result = await callOnce(slow, { query: 'take your time' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'the app did not finish within 50 ms' }],
      isError: true,
    });
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });

  it('a thrown error is "the app failed to run" for the client, and its cause goes to the hook only', async () => {
    const result = await callOnce(broken, {});
    expect(result).toEqual({ content: [{ type: 'text', text: 'the app failed to run' }], isError: true });
    const index = failing.reports.indexOf(cause);
    expect(index).toBeGreaterThanOrEqual(0);
    expect(failing.reportContexts[index]).toMatchObject({ phase: 'run', appId: 'broken' });
  });

  it('outputs that break the declared schema are an error result, and a report to the hook', async () => {
    const text =
      'the app returned outputs that do not match its declared output schema: total must be a number';
    const result = await callOnce(liar, {});
    expect(result).toEqual({ content: [{ type: 'text', text }], isError: true });
    const index = failing.reports.findIndex((report) => report instanceof Error && report.message === text);
    expect(index).toBeGreaterThanOrEqual(0);
    expect(failing.reportContexts[index]).toMatchObject({ phase: 'outputs', appId: 'liar' });
  });
});
