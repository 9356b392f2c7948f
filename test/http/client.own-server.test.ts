/**
 * `connectMcpServer` against this package's own MCP endpoint, in both protocol eras: the 2025 era
 * (the `initialize` handshake, through `@modelcontextprotocol/sdk`) and the 2026-07-28 era
 * (`server/discover` and stateless requests, through `@modelcontextprotocol/client`). A host's app
 * can call the published apps of another host (or its own) as remote tools, and reads the same
 * results either way: workflows give their outputs as `variables` (they declare an output schema),
 * chat apps their `answer` and `conversation_id`, JSON answers come as `json`, media and links as
 * `files`; failures come back as `isError`; progress, cancellation and timeouts reach the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ANNOTATIONS, runApp as runDemoApp } from '../../example-app/apps.js';
import {
  connectMcpServer,
  type HostApp,
  type McpServerConnection,
  RemoteMcpError,
  type RunApp,
} from '../../src/index.js';
import {
  calcAgent,
  type DemoHost,
  demoApps,
  faqBot,
  startDemoHost,
  textStats,
  titleCase,
} from '../helpers/apps.js';
import {
  DEMO_CASES,
  SERVER_INFO,
  slowReportOutputs,
  TEXT_STATS_OUTPUTS,
  withoutExecution,
} from '../helpers/demo-cases.js';
import { FILE_DEMO_CASES } from '../helpers/example-file-cases.js';
import { structuredResult } from '../helpers/remote-servers.js';

const demoApp = (id: string) => demoApps.find((app) => app.id === id)!;
const imageFacts = demoApp('image-facts');
const manualFinder = demoApp('manual-finder');
const slowReport = demoApp('slow-report');

/** A completion app whose answer is a JSON text. */
const lookup: HostApp = {
  id: 'lookup',
  name: 'Lookup',
  mode: 'completion',
  inputForm: [{ type: 'text-input', variable: 'sku', required: true }],
};
const runApp: RunApp = (run) =>
  run.app.id === lookup.id
    ? { answer: JSON.stringify({ sku: run.inputs.sku, in_stock: 2, shelves: ['A1', 'B4'] }) }
    : runDemoApp(run);

describe.each([
  { protocol: '2025', version: '2025-11-25', meta: {} },
  {
    protocol: '2026-07-28',
    version: '2026-07-28',
    // Every result of that era names the server (docs/http-contract.md, "The 2026-07-28 era").
    meta: { _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } },
  },
] as const)(
  "connectMcpServer against this package's own server, protocol $protocol",
  ({ protocol, version, meta }) => {
    let host: DemoHost;

    beforeAll(async () => {
      host = await startDemoHost({
        apps: [textStats, faqBot, calcAgent, titleCase, imageFacts, manualFinder, slowReport, lookup],
        runApp,
      });
      // Published with its hints, as the example publishes it: the client keeps them.
      await host.store.updateServer(host.servers[textStats.id]!.id, {
        annotations: DEMO_ANNOTATIONS[textStats.id],
      });
    });
    afterAll(async () => {
      await host?.close();
    });

    const connect = (app: HostApp, options: Parameters<typeof connectMcpServer>[1] = {}) =>
      connectMcpServer(host.endpointOf(app), { protocol, timeoutMs: 5000, ...options });

    async function withConnection<T>(app: HostApp, use: (connection: McpServerConnection) => Promise<T>) {
      const connection = await connect(app);
      try {
        return await use(connection);
      } finally {
        await connection.close();
      }
    }

    /** The run a call started: the first one after `before`. */
    const runAfter = async (before: number) => {
      await expect.poll(() => host.runs.length).toBeGreaterThan(before);
      return host.runs[before]!;
    };

    it('connects in that era and lists the published app as one tool, with its schemas and hints', async () => {
      const { connection, tools } = await withConnection(textStats, async (connection) => ({
        connection,
        tools: await connection.listTools(),
      }));

      expect(connection.protocolVersion).toBe(version);
      expect(connection.transport).toBe('streamable-http');
      expect(connection.serverInfo).toEqual(SERVER_INFO);
      // The tool exactly as the example's clients see it, its hints included; this client keeps no `execution`.
      expect(tools).toEqual([withoutExecution(DEMO_CASES[0]!.tool)]);
    });

    it('a workflow: its outputs are the variables, and the run got the arguments in that era', async () => {
      const runsBefore = host.runs.length;

      const result = await withConnection(textStats, (connection) =>
        connection.callTool('Text_Stats', { text: 'the cat and the hat', top_n: 2 }),
      );

      const outputs = { word_count: 5, char_count: 19, top_words: ['the', 'and'] };
      expect(result).toEqual(structuredResult(outputs, { isError: false, ...meta }));
      expect(host.runs.slice(runsBefore).map((run) => [run.inputs, run.protocolVersion])).toEqual([
        [{ text: 'the cat and the hat', top_n: 2 }, version],
      ]);
    });

    it("the run's progress reaches onProgress, in order", async () => {
      const seen: unknown[] = [];

      const result = await withConnection(textStats, (connection) =>
        connection.callTool(
          'Text_Stats',
          { text: 'the cat and the hat' },
          { onProgress: (p) => seen.push(p) },
        ),
      );

      expect(result.variables).toEqual(TEXT_STATS_OUTPUTS);
      expect(seen).toEqual([
        { progress: 1, total: 3, message: 'splitting the text into words' },
        { progress: 2, total: 3, message: 'counting characters' },
        { progress: 3, total: 3, message: 'ranking the words' },
      ]);
    });

    it('a chat app: its answer and its conversation are the text and the variables', async () => {
      const result = await withConnection(faqBot, (connection) =>
        connection.callTool('FAQ_Bot', { query: 'What are your opening hours?' }),
      );

      // The FAQ Bot keeps conversations: its id comes back as a variable and as a second text block.
      const hours = 'We are open Monday to Friday, 9:00 to 17:00.';
      const conversationId = (result.variables as { conversation_id: string }).conversation_id;
      expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
      const text = `conversation_id: ${conversationId}`;
      expect(result).toEqual({
        isError: false,
        text: `${hours}\n${text}`,
        json: [],
        variables: { answer: hours, conversation_id: conversationId },
        files: [],
        raw: {
          content: [
            { type: 'text', text: hours },
            { type: 'text', text },
          ],
          structuredContent: { answer: hours, conversation_id: conversationId },
          isError: false,
          ...meta,
        },
      });
    });

    it('an answer that is a JSON text: parsed into json, and the answer is a variable', async () => {
      const result = await withConnection(lookup, (connection) =>
        connection.callTool('Lookup', { sku: 'X-9' }),
      );

      const answer = '{"sku":"X-9","in_stock":2,"shelves":["A1","B4"]}';
      expect(result).toEqual({
        isError: false,
        text: answer,
        json: [{ sku: 'X-9', in_stock: 2, shelves: ['A1', 'B4'] }],
        variables: { answer },
        files: [],
        raw: {
          content: [{ type: 'text', text: answer }],
          structuredContent: { answer },
          isError: false,
          ...meta,
        },
      });
    });

    it('an image block and a resource link are files', async () => {
      const [image, manual] = FILE_DEMO_CASES.map((demo) => demo.valid[0]!);

      const [facts, found] = [
        await withConnection(imageFacts, (connection) =>
          connection.callTool('Image_Facts', image!.arguments),
        ),
        await withConnection(manualFinder, (connection) =>
          connection.callTool('Manual_Finder', manual!.arguments),
        ),
      ];

      const factsText = (image!.result.content[0] as { text: string }).text;
      const identicon = (image!.result.content[1] as { data: string }).data;
      expect(facts).toEqual({
        isError: false,
        text: factsText,
        // The text repeats the outputs without the identicon's data, so it is JSON of its own.
        json: [JSON.parse(factsText)],
        variables: image!.result.structuredContent,
        files: [{ data: identicon, mimeType: 'image/png', size: Buffer.from(identicon, 'base64').length }],
        raw: { ...image!.result, ...meta },
      });
      const answer = 'Here is the manual for Coffee Maker 3000: coffee-maker-3000.pdf';
      expect(found).toEqual({
        isError: false,
        text: answer,
        json: [],
        variables: manual!.result.structuredContent,
        files: [
          {
            url: 'https://manuals.example.com/coffee-maker-3000.pdf',
            name: 'coffee-maker-3000.pdf',
            mimeType: 'application/pdf',
          },
        ],
        raw: { ...manual!.result, ...meta },
      });
    });

    it("an app's error and bad arguments are isError results the caller can read", async () => {
      const [failed, invalid] = await withConnection(calcAgent, async (connection) => [
        await connection.callTool('Calculator_Agent', { query: '1 / 0' }),
        await connection.callTool('Calculator_Agent', {}),
      ]);

      const result = (text: string) => ({
        isError: true,
        text,
        json: [],
        variables: {},
        files: [],
        raw: { content: [{ type: 'text', text }], isError: true, ...meta },
      });
      expect(failed).toEqual(result('division by zero'));
      expect(invalid).toEqual(result('Invalid arguments for tool Calculator_Agent: query is required'));
    });

    it('an unknown tool is a JSON-RPC error naming the server', async () => {
      const url = host.endpointOf(titleCase).href;

      const error = await withConnection(titleCase, (connection) =>
        connection.callTool('No_Such_Tool').catch((caught: unknown) => caught),
      );

      expect(error).toBeInstanceOf(RemoteMcpError);
      expect(error).toMatchObject({
        kind: 'rpc',
        rpcCode: -32602,
        server: url,
        message: `MCP server ${url}: refused tools/call: Unknown tool: No_Such_Tool (JSON-RPC error -32602)`,
      });
    });

    it("aborting the caller's signal rejects with its reason, and the run's signal fires", async () => {
      const runsBefore = host.runs.length;
      const controller = new AbortController();
      const reason = new Error('the user went away');

      const error = await withConnection(slowReport, (connection) =>
        connection
          .callTool(
            'Slow_Report',
            { topic: 'tides', seconds: 60 },
            // Aborted once the run has started and said so.
            { signal: controller.signal, onProgress: () => controller.abort(reason) },
          )
          .catch((caught: unknown) => caught),
      );

      expect(error).toBe(reason);
      const run = await runAfter(runsBefore);
      await expect.poll(() => run.signal.aborted).toBe(true);
      expect(run.protocolVersion).toBe(version);
    });

    it('a call slower than callTimeoutMs: a timeout naming the server, the run stops, the connection goes on', async () => {
      const url = host.endpointOf(slowReport).href;
      const runsBefore = host.runs.length;
      const connection = await connect(slowReport, { callTimeoutMs: 300 });
      try {
        const error = await connection
          .callTool('Slow_Report', { topic: 'tides', seconds: 60 })
          .catch((caught: unknown) => caught);

        expect(error).toBeInstanceOf(RemoteMcpError);
        expect(error).toMatchObject({
          kind: 'timeout',
          server: url,
          message: `MCP server ${url}: no answer to tools/call within 300 ms`,
        });
        const run = await runAfter(runsBefore);
        await expect.poll(() => run.signal.aborted).toBe(true);
        const quick = await connection.callTool('Slow_Report', { topic: 'tides', seconds: 0 });
        expect(quick.variables).toEqual(slowReportOutputs('tides'));
      } finally {
        await connection.close();
      }
    });

    it("a rotated code: the old URL is a 404 that names the server, with the server's message", async () => {
      const { store, servers } = host;
      const old = host.endpointOf(faqBot);
      await store.rotateCode(servers[faqBot.id]!.id);

      const error = await connectMcpServer(old, { protocol, timeoutMs: 5000 }).catch(
        (caught: unknown) => caught,
      );

      expect(error).toBeInstanceOf(RemoteMcpError);
      expect(error).toMatchObject({
        kind: 'http',
        status: 404,
        rpcCode: -32600,
        message: `MCP server ${old.href}: answered HTTP 404: MCP server not found`,
      });
    });
  },
);
