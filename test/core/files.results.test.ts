/**
 * Files and media in `tools/call` results (README, "Files in and out"), through the protocol core
 * for every protocol version. Every result is checked against the official SDK's result schema for
 * its version (the v1 SDK's content block schemas, restricted to the blocks that revision defines;
 * the v2 SDK's schema for 2026-07-28), and `structuredContent` against the tool's `outputSchema`
 * with a JSON Schema 2020-12 validator. The official clients then show image and resource-link
 * results, over HTTP on a real host (127.0.0.1).
 */

import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { CallToolResultSchema as ModernCallToolResultSchema } from '@modelcontextprotocol/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  AudioContentSchema,
  CallToolResultSchema,
  EmbeddedResourceSchema,
  ImageContentSchema,
  ResourceLinkSchema,
  TextContentSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AppEvent, AppFile } from '../../src/index.js';
import { PACKAGE_VERSION, SUPPORTED_VERSIONS } from '../../src/versions.js';
import { createFileWorld } from '../helpers/apps.js';
import { worldOnCore } from '../helpers/core.js';
import { FILE_OUTPUT_SCHEMA } from '../helpers/file-schemas.js';
import { hostVariants, worldHostFor } from '../helpers/hosts.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';
import { expectRpcReply, rpcResult } from '../helpers/rpc.js';
import {
  callTool,
  decodedSize,
  listTool,
  PDF_BASE64,
  PNG_BASE64,
  WAV_BASE64,
} from '../helpers/sample-files.js';

const ajv = jsonSchemaValidator();

const MODERN = '2026-07-28';
/** What every 2026-07-28 result carries besides its content (docs/http-contract.md, "The 2026-07-28 era"). */
const MODERN_RESULT = {
  resultType: 'complete',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'express-app-mcp', version: PACKAGE_VERSION } },
};

/** The content blocks each revision's schema defines: `audio` from 2025-03-26, `resource_link` from 2025-06-18. */
function resultSchemaFor(version: string): z.ZodType {
  if (version >= MODERN) return ModernCallToolResultSchema;
  const blocks: z.ZodType[] = [TextContentSchema, ImageContentSchema, EmbeddedResourceSchema];
  if (version >= '2025-03-26') blocks.push(AudioContentSchema);
  if (version >= '2025-06-18') blocks.push(ResourceLinkSchema);
  return CallToolResultSchema.extend({
    content: z.array(z.union(blocks as [z.ZodType, z.ZodType, ...z.ZodType[]])),
  });
}

/** The result of a reply, checked against its version's schema (and its JSON-RPC envelope). */
function resultOf(reply: { status: number; json: unknown }, version: string): Record<string, unknown> {
  expect(reply.status).toBe(200);
  const { result } = reply.json as { result: Record<string, unknown> };
  const parsed = resultSchemaFor(version).safeParse(result);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return result;
}

const LINK = 'https://files.example.com/reports/q3%20report.pdf';

/** A workflow result with one file of each kind: inline image, link, inline audio, other inline data. */
const REPORT_OUTPUTS = {
  summary: 'Q3 sales',
  image: { data: PNG_BASE64, mimeType: 'image/png', name: 'chart.png' },
  documents: [
    { url: LINK, size: 1234 },
    { data: WAV_BASE64, name: 'voice.wav' },
    { data: PDF_BASE64, mimeType: 'application/pdf', name: 'notes.pdf' },
  ],
} satisfies Record<string, unknown>;

const sizes = { png: decodedSize(PNG_BASE64), wav: decodedSize(WAV_BASE64), pdf: decodedSize(PDF_BASE64) };

/** The files as `structuredContent` shows them. */
const STRUCTURED = {
  summary: 'Q3 sales',
  image: { data: PNG_BASE64, name: 'chart.png', mime_type: 'image/png', size: sizes.png },
  documents: [
    { url: LINK, name: 'q3 report.pdf', mime_type: 'application/pdf', size: 1234 },
    { data: WAV_BASE64, name: 'voice.wav', mime_type: 'audio/wav', size: sizes.wav },
    { data: PDF_BASE64, name: 'notes.pdf', mime_type: 'application/pdf', size: sizes.pdf },
  ],
};

/** The text block: the same JSON without the inline bytes, which have blocks of their own. */
const TEXT = JSON.stringify({
  summary: 'Q3 sales',
  image: { name: 'chart.png', mime_type: 'image/png', size: sizes.png },
  documents: [
    { url: LINK, name: 'q3 report.pdf', mime_type: 'application/pdf', size: 1234 },
    { name: 'voice.wav', mime_type: 'audio/wav', size: sizes.wav },
    { name: 'notes.pdf', mime_type: 'application/pdf', size: sizes.pdf },
  ],
});

function expectedReportContent(version: string): unknown[] {
  return [
    { type: 'text', text: TEXT },
    { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
    version >= '2025-06-18'
      ? { type: 'resource_link', uri: LINK, name: 'q3 report.pdf', mimeType: 'application/pdf', size: 1234 }
      : { type: 'text', text: `File q3 report.pdf (application/pdf, 1234 bytes): ${LINK}` },
    version >= '2025-03-26'
      ? { type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }
      : { type: 'resource', resource: { uri: 'file:///voice.wav', mimeType: 'audio/wav', blob: WAV_BASE64 } },
    {
      type: 'resource',
      resource: { uri: 'file:///notes.pdf', mimeType: 'application/pdf', blob: PDF_BASE64 },
    },
  ];
}

async function* events(...list: AppEvent[]): AsyncIterable<AppEvent> {
  yield* list;
}

describe('files in results, protocol version by protocol version', () => {
  const suite = worldOnCore(createFileWorld);

  it.each(SUPPORTED_VERSIONS)(
    '%s: declared file outputs become content blocks after the text',
    async (version) => {
      suite.world.respond = () => ({ outputs: REPORT_OUTPUTS });
      const reply = await callTool(suite.core, suite.world.codes.reportMaker, version, 'Report_Maker');
      const result = resultOf(reply, version);

      const expected: Record<string, unknown> = { content: expectedReportContent(version), isError: false };
      if (version >= '2025-06-18') expected.structuredContent = STRUCTURED;
      if (version >= MODERN) Object.assign(expected, MODERN_RESULT);
      expect(result).toEqual(expected);
      expect(suite.world.reports).toEqual([]);
    },
  );

  it.each(SUPPORTED_VERSIONS.filter((version) => version >= '2025-06-18'))(
    '%s: the outputSchema is JSON Schema 2020-12 and the structuredContent follows it',
    async (version) => {
      suite.world.respond = () => ({ outputs: REPORT_OUTPUTS });
      const tool = await listTool(suite.core, suite.world.codes.reportMaker, version);
      const fileSchema = FILE_OUTPUT_SCHEMA;
      expect(tool.outputSchema).toEqual({
        type: 'object',
        properties: {
          summary: { type: 'string' },
          image: { ...fileSchema, description: 'A chart' },
          documents: { type: 'array', items: fileSchema },
        },
        required: ['summary', 'image', 'documents'],
      });
      expect(ajv.validateSchema(tool.outputSchema as object), ajv.errorsText(ajv.errors)).toBe(true);
      const validate = ajv.compile(tool.outputSchema as object);
      const result = resultOf(
        await callTool(suite.core, suite.world.codes.reportMaker, version, 'Report_Maker'),
        version,
      );
      expect(validate(result.structuredContent), ajv.errorsText(validate.errors)).toBe(true);
      // A file with both url and data breaks the schema: the result never writes one.
      expect(validate({ ...STRUCTURED, image: { ...STRUCTURED.image, url: LINK } })).toBe(false);
    },
  );

  it.each(['2024-11-05', '2025-11-25', MODERN])(
    '%s: a chat answer with message_file events and returned files',
    async (version) => {
      suite.world.respond = () =>
        events(
          { event: 'message', answer: 'Here is ' },
          { event: 'message_file', file: { url: 'https://files.example.com/a.png' } },
          { event: 'message', answer: 'your chart.' },
          { event: 'message_file', file: { url: `data:image/png;base64,${PNG_BASE64}`, name: 'inline.png' } },
        );
      const streamed = resultOf(
        await callTool(suite.core, suite.world.codes.fileChat, version, 'File_Chat', { query: 'q' }),
        version,
      );
      suite.world.respond = () => ({
        answer: 'Here is your chart.',
        files: [
          { url: 'https://files.example.com/a.png' },
          { data: PNG_BASE64, mimeType: 'image/png', name: 'inline.png' },
        ],
      });
      const plain = resultOf(
        await callTool(suite.core, suite.world.codes.fileChat, version, 'File_Chat', { query: 'q' }),
        version,
      );

      const link =
        version >= '2025-06-18'
          ? {
              type: 'resource_link',
              uri: 'https://files.example.com/a.png',
              name: 'a.png',
              mimeType: 'image/png',
            }
          : { type: 'text', text: 'File a.png (image/png): https://files.example.com/a.png' };
      const expected: Record<string, unknown> = {
        content: [
          { type: 'text', text: 'Here is your chart.' },
          link,
          { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        ],
        isError: false,
      };
      if (version >= '2025-06-18') {
        expected.structuredContent = {
          answer: 'Here is your chart.',
          files: [
            { url: 'https://files.example.com/a.png', name: 'a.png', mime_type: 'image/png' },
            { data: PNG_BASE64, name: 'inline.png', mime_type: 'image/png', size: sizes.png },
          ],
        };
      }
      if (version >= MODERN) Object.assign(expected, MODERN_RESULT);
      expect(streamed).toEqual(expected);
      expect(plain).toEqual(expected);
    },
  );

  it('links as the URL parser writes them and media types in any case: the output schema holds', async () => {
    suite.world.respond = () => ({
      outputs: {
        summary: 'raw',
        image: { data: PNG_BASE64, mimeType: ' Image/PNG', name: 'chart.png' },
        documents: [
          { url: 'https://files.example.com/reports/q3 report.pdf', size: 1234 },
          { url: 'https://files.example.com/ä.png' },
        ],
      },
    });
    const version = '2025-11-25';
    const result = resultOf(
      await callTool(suite.core, suite.world.codes.reportMaker, version, 'Report_Maker'),
      version,
    );
    const accented = 'https://files.example.com/%C3%A4.png';
    const documents = [
      { url: LINK, name: 'q3 report.pdf', mime_type: 'application/pdf', size: 1234 },
      { url: accented, name: 'ä.png', mime_type: 'image/png' },
    ];
    const image = { name: 'chart.png', mime_type: 'image/png', size: sizes.png };
    expect(result).toEqual({
      content: [
        { type: 'text', text: JSON.stringify({ summary: 'raw', image, documents }) },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        { type: 'resource_link', uri: LINK, name: 'q3 report.pdf', mimeType: 'application/pdf', size: 1234 },
        { type: 'resource_link', uri: accented, name: 'ä.png', mimeType: 'image/png' },
      ],
      structuredContent: { summary: 'raw', image: { data: PNG_BASE64, ...image }, documents },
      isError: false,
    });
    const tool = await listTool(suite.core, suite.world.codes.reportMaker, version);
    const validate = ajv.compile(tool.outputSchema as object);
    expect(validate(result.structuredContent), ajv.errorsText(validate.errors)).toBe(true);
  });

  it('a chat answer without files keeps its plain structuredContent', async () => {
    suite.world.respond = () => ({ answer: 'no files', files: [] });
    const reply = await callTool(suite.core, suite.world.codes.fileChat, '2025-11-25', 'File_Chat', {
      query: 'q',
    });
    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        content: [{ type: 'text', text: 'no files' }],
        structuredContent: { answer: 'no files' },
        isError: false,
      }),
    );
  });
});

describe('results that cannot carry their files', () => {
  const limit = 2 * 1024;
  const suite = worldOnCore(createFileWorld, { maxInlineResultBytes: limit });

  const errorReply = (text: string) => rpcResult(1, { content: [{ type: 'text', text }], isError: true });

  it('more inline bytes than maxInlineResultBytes is an error result, reported to onError', async () => {
    const big = Buffer.alloc(1500, 1).toString('base64');
    suite.world.respond = () => ({
      outputs: {
        summary: 'too much',
        image: { data: big, mimeType: 'image/png' },
        documents: [{ data: big, mimeType: 'application/pdf' }, { url: LINK }],
      },
    });
    const text = `the app returned 3000 bytes of inline files, more than the ${limit} bytes one result may carry`;
    expectRpcReply(
      await callTool(suite.core, suite.world.codes.reportMaker, '2025-11-25', 'Report_Maker'),
      200,
      errorReply(text),
    );
    expect(suite.world.reports.map(({ error, context }) => [(error as Error).message, context])).toEqual([
      [text, { phase: 'outputs', serverId: expect.any(String), appId: 'report-maker' }],
    ]);
  });

  it('links do not count: a result of links only passes whatever their sizes', async () => {
    suite.world.respond = () => ({ answer: 'links', files: [{ url: LINK, size: 10 * limit }] });
    const reply = await callTool(suite.core, suite.world.codes.fileChat, '2025-11-25', 'File_Chat', {
      query: 'q',
    });
    expect(resultOf(reply, '2025-11-25')).toMatchObject({ isError: false });
    expect(suite.world.reports).toEqual([]);
  });

  it('a declared file output that is no file breaks the declared output schema', async () => {
    suite.world.respond = () => ({
      outputs: {
        summary: 's',
        image: { name: 'chart.png' },
        documents: [{ url: LINK }, { data: 'not base64!' }],
      },
    });
    const text =
      'the app returned outputs that do not match its declared output schema: image must be a file: an object with a url or base64 data; documents[1].data must be base64';
    expectRpcReply(
      await callTool(suite.core, suite.world.codes.reportMaker, '2025-11-25', 'Report_Maker'),
      200,
      errorReply(text),
    );
    expect(suite.world.reports.map(({ context }) => context.phase)).toEqual(['outputs']);
  });

  it.each<[string, unknown, string]>([
    ['without url or data', { name: 'x.png' }, 'file 1 must be a file: an object with a url or base64 data'],
    ['with data that is not base64', { data: '***' }, 'file 1 data must be base64'],
    ['with a relative url', { url: '/files/a.pdf' }, 'file 1 url must be an absolute URL'],
    // The URL parser reads both as data: URLs; the first is what `hasDataScheme` alone would miss.
    [
      'with a data: URL after a space',
      { url: ` data:image/png;base64,${PNG_BASE64}` },
      'file 1 url must be a base64 data: URL or another absolute URL',
    ],
    [
      'with a tab inside its data: scheme',
      { url: `da\tta:image/png;base64,${PNG_BASE64}` },
      'file 1 url must be a base64 data: URL or another absolute URL',
    ],
    ['with a negative size', { url: LINK, size: -1 }, 'file 1 size must be a whole number of bytes'],
  ])('a message_file %s is an error result, reported to onError', async (_, file, problem) => {
    suite.world.respond = () =>
      events({ event: 'message', answer: 'see attached' }, { event: 'message_file', file: file as AppFile });
    const text = `the app returned a file that cannot be sent: ${problem}`;
    expectRpcReply(
      await callTool(suite.core, suite.world.codes.fileChat, '2025-11-25', 'File_Chat', { query: 'q' }),
      200,
      errorReply(text),
    );
    expect(
      suite.world.reports.map(({ error, context }) => [(error as Error).message, context.phase]),
    ).toEqual([[text, 'outputs']]);
  });
});

describe('the official clients show image and resource-link results', () => {
  const suite = worldHostFor(hostVariants[0]!, createFileWorld);

  beforeAll(() => {
    suite.world.respond = () => ({ outputs: REPORT_OUTPUTS });
  });

  const url = () => new URL(suite.host.path(suite.world.codes.reportMaker), suite.host.url);

  it('the v1 SDK client (2025-11-25): blocks and structuredContent, checked by the client itself', async () => {
    const client = new Client({ name: 'files-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url()));
    try {
      // The client validates structuredContent against the tool's outputSchema on its own.
      const result = await client.callTool({ name: 'Report_Maker', arguments: {} });
      expect(result).toEqual({
        content: expectedReportContent('2025-11-25'),
        structuredContent: STRUCTURED,
        isError: false,
      });
    } finally {
      await client.close();
    }
  });

  it('the v2 client on 2026-07-28', async () => {
    const client = new ModernClient(
      { name: 'files-modern-client', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(new ModernTransport(url()));
    try {
      const result = await client.callTool({ name: 'Report_Maker', arguments: {} });
      expect(result).toMatchObject({
        content: expectedReportContent(MODERN),
        structuredContent: STRUCTURED,
        isError: false,
      });
    } finally {
      await client.close();
    }
  });
});
