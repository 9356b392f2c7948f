/**
 * `connectMcpServer` against this package's own MCP endpoint: a host's app can call the published
 * apps of another host (or its own) as remote tools. Workflows give their outputs as `variables`
 * (they declare an output schema), chat apps their `answer`; failures come back as `isError`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpServerConnection } from '../src/index.js';
import { calcAgent, type DemoHost, faqBot, startDemoHost, textStats } from './helpers/apps.js';
import { DEMO_CASES } from './helpers/demo-cases.js';
import { structuredResult } from './helpers/remote-servers.js';

describe("connectMcpServer against this package's own server", () => {
  let host: DemoHost;

  beforeAll(async () => {
    host = await startDemoHost({ apps: [textStats, faqBot, calcAgent] });
  });
  afterAll(async () => {
    await host?.close();
  });

  async function withConnection<T>(url: URL, use: (connection: McpServerConnection) => Promise<T>) {
    const connection = await connectMcpServer(url, { timeoutMs: 5000 });
    try {
      return await use(connection);
    } finally {
      await connection.close();
    }
  }

  it('lists the published app as one tool, with its input and output schemas', async () => {
    const tools = await withConnection(host.endpointOf(textStats), (connection) => connection.listTools());

    // The tool as the example's clients see it, less the hints the example publishes it with: this
    // host publishes its servers without annotations.
    const { annotations: _hints, ...tool } = DEMO_CASES[0]!.tool as { annotations?: unknown };
    expect(tools).toEqual([tool]);
  });

  it('a workflow: its outputs are the variables, and the run got the arguments', async () => {
    const runsBefore = host.runs.length;

    const result = await withConnection(host.endpointOf(textStats), (connection) =>
      connection.callTool('Text_Stats', { text: 'the cat and the hat', top_n: 2 }),
    );

    const outputs = { word_count: 5, char_count: 19, top_words: ['the', 'and'] };
    expect(result).toEqual(structuredResult(outputs, { isError: false }));
    expect(host.runs.slice(runsBefore).map((run) => run.inputs)).toEqual([
      { text: 'the cat and the hat', top_n: 2 },
    ]);
    expect(host.runs[runsBefore]?.protocolVersion).toBe('2025-11-25');
  });

  it('a chat app: its answer is the text and the answer variable', async () => {
    const result = await withConnection(host.endpointOf(faqBot), (connection) =>
      connection.callTool('FAQ_Bot', { query: 'What are your opening hours?' }),
    );

    // The FAQ Bot keeps conversations: its id comes back as a variable and as a second text block.
    const hours = 'We are open Monday to Friday, 9:00 to 17:00.';
    const conversationId = (result.variables as { conversation_id: string }).conversation_id;
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.text).toBe(`${hours}\nconversation_id: ${conversationId}`);
    expect(result.variables).toEqual({ answer: hours, conversation_id: conversationId });
    expect(result.isError).toBe(false);
  });

  it("an app's error and bad arguments are isError results the caller can read", async () => {
    const [failed, invalid] = await withConnection(host.endpointOf(calcAgent), async (connection) => [
      await connection.callTool('Calculator_Agent', { query: '1 / 0' }),
      await connection.callTool('Calculator_Agent', {}),
    ]);

    expect(failed).toMatchObject({ isError: true, text: 'division by zero', variables: {} });
    expect(invalid).toMatchObject({ isError: true, variables: {} });
    expect(invalid?.text).toMatch(/query is required/);
  });

  it('a rotated code: the old URL is a 404 that names the server', async () => {
    const { store, servers } = host;
    const old = host.endpointOf(faqBot);
    await store.rotateCode(servers[faqBot.id]!.id);

    const error = await connectMcpServer(old, { timeoutMs: 5000 }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({
      kind: 'http',
      status: 404,
      message: `MCP server ${old.href}: answered HTTP 404`,
    });
  });
});
