/**
 * docs/http-contract.md, "The 2025 era" and "Version-gated shapes", driven through the protocol
 * core. `initialize` negotiates from its params alone; every other request takes its version from
 * its own `MCP-Protocol-Version` header (absent: 2025-03-26); nothing is remembered between
 * requests; and the tool and call-result shapes follow the version.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createWorld, DESCRIPTIONS, TEXT_STATS_TOOL } from '../helpers/apps.js';
import { worldOnCore } from '../helpers/core.js';
import {
  expectAccepted,
  expectRpcError,
  expectRpcResult,
  notification,
  request,
  SERVER_CAPABILITIES,
} from '../helpers/rpc.js';

const SUPPORTED = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const { version: PACKAGE_VERSION } = JSON.parse(
  await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
);

const {
  basic: TEXT_STATS_BASIC,
  structured: TEXT_STATS_STRUCTURED,
  withIcons: TEXT_STATS_WITH_ICONS,
} = TEXT_STATS_TOOL;

/** The FAQ Bot tool: a chat app whose icon is plain http, so never shown. */
const FAQ_BOT_BASIC = {
  name: 'FAQ_Bot',
  description: 'Answers questions',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'User Input/Question content' },
      tone: { type: 'string', enum: ['plain', 'friendly'], description: 'Tone' },
    },
    required: ['query'],
  },
};
const FAQ_BOT_STRUCTURED = {
  ...FAQ_BOT_BASIC,
  title: 'FAQ Bot!',
  outputSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
};

const CALL = { name: 'Text_Stats', arguments: { text: 'one two three four', top_n: 2 } };
const OUTPUTS = { word_count: 4, top_words: ['one', 'two'] };

describe('protocol versions', () => {
  const suite = worldOnCore(createWorld);

  const initializeResult = (protocolVersion: string) => ({
    protocolVersion,
    // MCP 2025-11-25 brought tasks.
    capabilities: protocolVersion >= '2025-11-25' ? SERVER_CAPABILITIES : { tools: { listChanged: false } },
    serverInfo: { name: 'express-app-mcp', version: PACKAGE_VERSION },
    instructions: DESCRIPTIONS.textStats,
  });
  const initialize = (protocolVersion: unknown, headers: Record<string, string> = {}) =>
    suite.core.post(
      suite.world.codes.textStats,
      request('init', 'initialize', {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
      headers,
    );

  describe('initialize negotiates from its params', () => {
    it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
      'a supported version %s is answered with itself',
      async (version) => {
        expectRpcResult(await initialize(version), 'init', initializeResult(version));
      },
    );

    it.each([
      ['an unknown older version', '2024-01-01'],
      ['a newer version', '2030-01-01'],
      ['the modern version, which has no initialize', '2026-07-28'],
      ['a string that is not a version', 'latest'],
      ['a number', 20250618],
      ['null', null],
      ['an object', { version: '2025-06-18' }],
    ])('%s is answered with the latest legacy version, never an error', async (_label, version) => {
      expectRpcResult(await initialize(version), 'init', initializeResult('2025-11-25'));
    });

    it.each([
      ['an unsupported header', 'bogus'],
      ['a different supported header', '2024-11-05'],
    ])('the MCP-Protocol-Version header is ignored on initialize: %s', async (_label, header) => {
      const reply = await initialize('2025-06-18', { 'mcp-protocol-version': header });
      expectRpcResult(reply, 'init', initializeResult('2025-06-18'));
    });

    it('issues no Mcp-Session-Id, and a session id sent by the client changes nothing', async () => {
      const reply = await initialize('2025-11-25');
      expect(reply.headers['mcp-session-id']).toBeUndefined();
      const listed = await suite.core.post(suite.world.codes.textStats, request(2, 'tools/list'), {
        'mcp-session-id': 'made-up-session',
        'mcp-protocol-version': '2025-11-25',
      });
      expectRpcResult(listed, 2, { tools: [TEXT_STATS_WITH_ICONS] });
    });
  });

  describe('other requests take the version from their own header', () => {
    const list = (headers: Record<string, string>) =>
      suite.core.post(suite.world.codes.textStats, request('l', 'tools/list'), headers);

    it('no header means 2025-03-26', async () => {
      expectRpcResult(await list({}), 'l', { tools: [TEXT_STATS_BASIC] });
    });

    it('an empty header means 2025-03-26', async () => {
      expectRpcResult(await list({ 'mcp-protocol-version': '' }), 'l', { tools: [TEXT_STATS_BASIC] });
    });

    it('a supported header is used as it is', async () => {
      expectRpcResult(await list({ 'mcp-protocol-version': '2025-06-18' }), 'l', {
        tools: [TEXT_STATS_STRUCTURED],
      });
    });

    it('an unsupported header answers 400 with the supported versions and the id echoed', async () => {
      expectRpcError(
        await list({ 'mcp-protocol-version': '2025-02-30' }),
        400,
        'l',
        -32600,
        'Unsupported MCP-Protocol-Version: 2025-02-30',
        { supported: SUPPORTED },
      );
    });

    it('nothing is remembered: after initialize at 2025-11-25, a request without the header is 2025-03-26', async () => {
      expectRpcResult(await initialize('2025-11-25'), 'init', initializeResult('2025-11-25'));
      expectRpcResult(await list({}), 'l', { tools: [TEXT_STATS_BASIC] });
    });

    it.each([
      ['no header', undefined],
      ['an unsupported header', 'bogus'],
      ['an unknown date', '2025-01-01'],
      ['a supported header', '2025-06-18'],
      // A header of 2026-07-28 or later makes the request modern, with its own version rules.
    ])('notifications are accepted whatever the header: %s', async (_label, header) => {
      const reply = await suite.core.post(
        suite.world.codes.textStats,
        notification('notifications/initialized'),
        {
          'mcp-protocol-version': header,
        },
      );
      expectAccepted(reply);
    });
  });

  describe('version-gated tool fields', () => {
    const listAt = (version: string, code = suite.world.codes.textStats) =>
      suite.core.post(code, request(1, 'tools/list'), { 'mcp-protocol-version': version });

    it.each([
      ['2024-11-05', TEXT_STATS_BASIC],
      ['2025-03-26', TEXT_STATS_BASIC],
      ['2025-06-18', TEXT_STATS_STRUCTURED],
      ['2025-11-25', TEXT_STATS_WITH_ICONS],
    ])('%s lists exactly its fields', async (version, tool) => {
      const reply = await listAt(version);
      expectRpcResult(reply, 1, { tools: [tool] });
      const [listed] = (reply.json as { result: { tools: Record<string, unknown>[] } }).result.tools;
      expect(Object.keys(listed ?? {}).sort()).toEqual(Object.keys(tool).sort());
    });

    it.each([
      ['2025-03-26', FAQ_BOT_BASIC],
      ['2025-06-18', FAQ_BOT_STRUCTURED],
      ['2025-11-25', { ...FAQ_BOT_STRUCTURED, execution: { taskSupport: 'optional' } }],
    ])('%s never shows an icon that is not https or data', async (version, tool) => {
      expectRpcResult(await listAt(version, suite.world.codes.faqBot), 1, { tools: [tool] });
    });
  });

  describe('version-gated call results', () => {
    const callAt = (version: string, params: Record<string, unknown> = CALL) =>
      suite.core.post(suite.world.codes.textStats, request('c', 'tools/call', params), {
        'mcp-protocol-version': version,
      });
    const content = [{ type: 'text', text: JSON.stringify(OUTPUTS) }];

    it.each(['2024-11-05', '2025-03-26'])('%s: exactly content and isError', async (version) => {
      expectRpcResult(await callAt(version), 'c', { content, isError: false });
    });

    it.each(['2025-06-18', '2025-11-25'])('%s: content, structuredContent and isError', async (version) => {
      expectRpcResult(await callAt(version), 'c', { content, structuredContent: OUTPUTS, isError: false });
    });

    it('the run receives the version it was called with', async () => {
      await callAt('2024-11-05');
      await callAt('2025-11-25');
      expect(suite.world.runs.map((run) => run.protocolVersion)).toEqual(['2024-11-05', '2025-11-25']);
    });

    const badArguments = { name: 'Text_Stats', arguments: { top_n: 'many' } };
    const problems = ['text is required', 'top_n must be a number'];
    const problemText = `Invalid arguments for tool Text_Stats: ${problems.join('; ')}`;

    it.each(['2024-11-05', '2025-03-26', '2025-06-18'])(
      '%s: arguments that fail the form are a JSON-RPC -32602 error',
      async (version) => {
        expectRpcError(await callAt(version, badArguments), 200, 'c', -32602, problemText, { problems });
        expect(suite.world.runs).toEqual([]);
      },
    );

    it('2025-11-25: arguments that fail the form are an isError result the model can read', async () => {
      expectRpcResult(await callAt('2025-11-25', badArguments), 'c', {
        content: [{ type: 'text', text: problemText }],
        isError: true,
      });
      expect(suite.world.runs).toEqual([]);
    });
  });
});
