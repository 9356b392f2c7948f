/**
 * `file` and `file-list` inputs (README, "Files in and out"), through the protocol core: their
 * input schema (valid JSON Schema 2020-12, checked with a real validator), what `runApp` receives,
 * every argument problem at once, the `data:` URL limit; then, on a real host (127.0.0.1) with the
 * official client, a stand-in file host that proves the package never fetches a file URL during a
 * call.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMcpServerOptions } from '../../src/endpoint/mcp-server-options.js';
import { ConfigurationError, mcpServer } from '../../src/index.js';
import { createFileWorld, type FileWorld } from '../helpers/apps.js';
import { type CoreClient, startWorldCore } from '../helpers/core.js';
import { FILE_INPUT_HOW, FILE_INPUT_SCHEMA } from '../helpers/file-schemas.js';
import { type Host, hostVariants, startWorldHost } from '../helpers/hosts.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';
import { expectRpcReply, rpcError, rpcResult } from '../helpers/rpc.js';
import { callTool, listTool, PNG_BASE64, receiptReaderCore } from '../helpers/sample-files.js';

const ajv = jsonSchemaValidator();

const FILE = FILE_INPUT_SCHEMA;
const HOW = FILE_INPUT_HOW;
const IMAGE = 'image (jpg, jpeg, png, webp, gif, svg)';
const DOCUMENT_OR_ZIP =
  'document (txt, markdown, md, mdx, pdf, html, htm, xlsx, xls, docx, csv, vtt, properties, doc, eml, msg, pptx, ppt, xml, epub) or custom (zip)';
const PNG_DATA_URL = `data:image/png;base64,${PNG_BASE64}`;
const TOOL = 'Receipt_Reader';

describe('file inputs', () => {
  const receipts = receiptReaderCore();
  const { call } = receipts;

  /** The reply to arguments that fail: an error result with every problem (SEP-1303). */
  const expectProblems = async (args: Record<string, unknown>, problems: string[]) => {
    expectRpcReply(
      await call(args),
      200,
      rpcResult(1, {
        content: [{ type: 'text', text: `Invalid arguments for tool ${TOOL}: ${problems.join('; ')}` }],
        isError: true,
      }),
    );
    expect(receipts.world.runs).toEqual([]);
  };

  it('the input schema: files as URL objects, their types in the description, upload-only files hidden', async () => {
    const tool = await listTool(receipts.core, receipts.world.codes.receiptReader, '2025-11-25');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        receipt: { ...FILE, description: `Receipt photo. One file of type ${IMAGE}: ${HOW}` },
        attachments: {
          type: 'array',
          items: FILE,
          maxItems: 2,
          description: `Attachments. A list of up to 2 files, each of type ${DOCUMENT_OR_ZIP}: ${HOW}`,
        },
        note: { type: 'string', maxLength: 10, description: 'Note' },
      },
      required: ['receipt'],
    });
    expect(ajv.validateSchema(tool.inputSchema as object), ajv.errorsText(ajv.errors)).toBe(true);
  });

  it('the schema and the checker agree on the shape; the type, scheme and size of a file only the checker knows', async () => {
    const tool = await listTool(receipts.core, receipts.world.codes.receiptReader, '2025-11-25');
    const validate = ajv.compile(tool.inputSchema as object);
    const cases: [Record<string, unknown>, { schema: boolean; checker: boolean }][] = [
      [{ receipt: { url: 'https://files.example.com/a.png' } }, { schema: true, checker: true }],
      [
        { receipt: { url: PNG_DATA_URL, filename: 'a.png', mime_type: 'image/png' } },
        { schema: true, checker: true },
      ],
      [
        { receipt: { url: 'https://x.example/a.png' }, attachments: [] },
        { schema: true, checker: true },
      ],
      [{ receipt: 'https://files.example.com/a.png' }, { schema: false, checker: false }],
      [{ receipt: {} }, { schema: false, checker: false }],
      [{ receipt: { url: 5 } }, { schema: false, checker: false }],
      [
        { receipt: { url: 'https://x.example/a.png' }, attachments: {} },
        { schema: false, checker: false },
      ],
      [
        {
          receipt: { url: 'https://x.example/a.png' },
          attachments: [1, 2, 3].map((n) => ({ url: `https://x.example/${n}.pdf` })),
        },
        { schema: false, checker: false },
      ],
      // What JSON Schema cannot say: the file's type, the URL's scheme, a data: URL's payload.
      [{ receipt: { url: 'https://files.example.com/a.pdf' } }, { schema: true, checker: false }],
      [{ receipt: { url: 'ftp://files.example.com/a.png' } }, { schema: true, checker: false }],
      [{ receipt: { url: 'data:image/png,not-base64' } }, { schema: true, checker: false }],
      // Deliberately lenient: a field the schema does not list is dropped, not refused.
      [{ receipt: { url: 'https://x.example/a.png', size: 3 } }, { schema: false, checker: true }],
    ];
    for (const [args, expected] of cases) {
      const reply = await call(args);
      const checker = !(reply.json as { result: { isError: boolean } }).result.isError;
      expect([args, { schema: validate(args), checker }]).toEqual([args, expected]);
    }
  });

  it('runApp receives each file as {type, url, filename?, mimeType?}, never downloaded', async () => {
    const args = {
      receipt: { url: PNG_DATA_URL, filename: 'receipt.png' },
      attachments: [
        { url: 'https://files.example.com/docs/Terms.PDF' },
        {
          url: 'http://files.example.com/download?id=7',
          filename: 'bundle.ZIP',
          mime_type: 'application/zip',
        },
      ],
      note: 'lunch',
      unknown: 'dropped',
    };
    const result = (await call(args)).json as { result: { isError: boolean } };
    expect(result.result.isError).toBe(false);
    expect(receipts.world.runs.map((run) => run.inputs)).toEqual([
      {
        receipt: { type: 'image', url: PNG_DATA_URL, filename: 'receipt.png', mimeType: 'image/png' },
        attachments: [
          { type: 'document', url: 'https://files.example.com/docs/Terms.PDF' },
          {
            type: 'custom',
            url: 'http://files.example.com/download?id=7',
            filename: 'bundle.ZIP',
            mimeType: 'application/zip',
          },
        ],
        note: 'lunch',
      },
    ]);
  });

  it('the type comes from the filename, else the URL path, else the media type', async () => {
    for (const [receipt, mimeType] of [
      [{ url: 'https://files.example.com/photo.JPEG' }, undefined],
      [{ url: 'https://files.example.com/get?id=1', filename: 'photo.webp' }, undefined],
      [{ url: 'https://files.example.com/get?id=1', mime_type: 'image/gif' }, 'image/gif'],
      [{ url: 'data:IMAGE/SVG+XML;charset=utf-8;base64,PHN2Zy8+' }, 'image/svg+xml'],
      [{ url: 'data:image/png;BASE64,PHN2Zy8+' }, 'image/png'],
    ] as const) {
      const reply = await call({ receipt });
      expect((reply.json as { result: { isError: boolean } }).result.isError).toBe(false);
      const expected: Record<string, unknown> = { type: 'image', ...receipt };
      delete expected.mime_type;
      if (mimeType) expected.mimeType = mimeType;
      expect(receipts.world.runs.pop()?.inputs.receipt).toEqual(expected);
    }
  });

  it('every problem at once, the file ones beside the others', async () => {
    await expectProblems(
      {
        receipt: { url: 'ftp://files.example.com/r.png' },
        attachments: [
          { url: 'https://x.example/a.exe' },
          { url: 'https://x.example/b.pdf' },
          { url: 'https://x.example/c.pdf', filename: 7 },
        ],
        note: 'far too long',
      },
      [
        'receipt.url must be an https or http URL, or a base64 data: URL',
        'attachments must hold at most 2 files',
        `attachments[0] must be of type ${DOCUMENT_OR_ZIP}; .exe files are not accepted`,
        'attachments[2].filename must be a string',
        'note must be at most 10 characters',
      ],
    );
  });

  it('a long list of wrong files: the first ten told, the rest not read', async () => {
    const attachments = Array.from({ length: 100_000 }, () => 0);
    const told = Array.from(
      { length: 10 },
      (_, index) => `attachments[${index}] must be a file: {"url": "…"}`,
    );
    await expectProblems({ receipt: { url: PNG_DATA_URL }, attachments }, [
      'attachments must hold at most 2 files',
      ...told,
      'attachments: more files have problems; only the first 10 are told',
    ]);
  });

  it.each<[string, unknown, string]>([
    ['a missing file', undefined, 'receipt is required'],
    ['a bare URL string', 'https://files.example.com/a.png', 'receipt must be a file: {"url": "…"}'],
    ['an object without url', { filename: 'a.png' }, 'receipt.url is required'],
    ['a url that is no string', { url: ['https://x.example/a.png'] }, 'receipt.url must be a string'],
    [
      'a javascript: URL',
      { url: 'javascript:alert(1)' },
      'receipt.url must be an https or http URL, or a base64 data: URL',
    ],
    [
      'a data: URL that is not base64',
      { url: 'data:image/png,abc' },
      'receipt.url must be an https or http URL, or a base64 data: URL',
    ],
    [
      'a data: URL after a space',
      { url: ' data:image/png;base64,PHN2Zy8+' },
      'receipt.url must be an https or http URL, or a base64 data: URL',
    ],
    [
      'a data: URL with broken base64',
      { url: 'data:image/png;base64,a$b=' },
      'receipt.url must be an https or http URL, or a base64 data: URL',
    ],
    [
      'a document',
      { url: 'https://x.example/report.pdf' },
      `receipt must be of type ${IMAGE}; it is document`,
    ],
    [
      'a document by data: URL',
      { url: 'data:text/plain;base64,aGk=' },
      `receipt must be of type ${IMAGE}; it is document`,
    ],
    [
      'an image name with a document mime_type',
      { url: 'https://x.example/photo.png', mime_type: 'application/pdf' },
      `receipt must be of type ${IMAGE}; its mime_type application/pdf is document`,
    ],
    [
      'a file whose type cannot be told',
      { url: 'https://x.example/download?id=3' },
      `receipt must be of type ${IMAGE}; give a filename with its extension, or a mime_type`,
    ],
  ])('%s is an argument problem', async (_, receipt, problem) => {
    await expectProblems(receipt === undefined ? {} : { receipt }, [problem]);
  });

  it('a file-list that is no list, and custom extensions', async () => {
    await expectProblems(
      { receipt: { url: 'https://x.example/a.png' }, attachments: { url: 'https://x.example/a.zip' } },
      ['attachments must be a list of files'],
    );
    await expectProblems(
      { receipt: { url: 'https://x.example/a.png' }, attachments: [{ url: 'https://x.example/a.rar' }] },
      [`attachments[0] must be of type ${DOCUMENT_OR_ZIP}; .rar files are not accepted`],
    );
  });

  it('before 2025-11-25 the same problems are a JSON-RPC invalid-params error', async () => {
    const problems = ['receipt must be of type image (jpg, jpeg, png, webp, gif, svg); it is document'];
    expectRpcReply(
      await call({ receipt: { url: 'https://x.example/r.pdf' } }, '2025-06-18'),
      200,
      rpcError(1, -32602, `Invalid arguments for tool ${TOOL}: ${problems[0]}`, { problems }),
    );
  });
});

describe('the data: URL limit (maxDataUrlBytes)', () => {
  let world: FileWorld;
  let core: CoreClient;

  beforeAll(async () => {
    ({ world, core } = await startWorldCore(createFileWorld, { maxDataUrlBytes: 60 }));
  });

  const dataUrlOf = (bytes: number) => `data:image/png;base64,${Buffer.alloc(bytes, 7).toString('base64')}`;

  it('a data: URL of exactly the limit passes; one byte more is an argument problem', async () => {
    const ok = await callTool(core, world.codes.receiptReader, '2025-11-25', TOOL, {
      receipt: { url: dataUrlOf(60) },
    });
    expect((ok.json as { result: { isError: boolean } }).result.isError).toBe(false);
    expectRpcReply(
      await callTool(core, world.codes.receiptReader, '2025-11-25', TOOL, {
        receipt: { url: dataUrlOf(61) },
      }),
      200,
      rpcResult(1, {
        content: [
          {
            type: 'text',
            text: `Invalid arguments for tool ${TOOL}: receipt is 61 bytes, more than the 60 a data: URL may carry; send an https URL instead`,
          },
        ],
        isError: true,
      }),
    );
  });

  it('defaults to 3 MiB, never more than maxBodyBytes, which it may not exceed', () => {
    const required = { resolveServer: async () => null, runApp: () => ({ answer: '' }) };
    expect(parseMcpServerOptions(required).maxDataUrlBytes).toBe(3 * 1024 * 1024);
    expect(parseMcpServerOptions({ ...required, maxBodyBytes: 1000 }).maxDataUrlBytes).toBe(1000);
    expect(() => mcpServer({ ...required, maxBodyBytes: 1000, maxDataUrlBytes: 1001 })).toThrow(
      new ConfigurationError(
        'invalid_options',
        'mcpServer: invalid option "maxDataUrlBytes": must not be larger than maxBodyBytes (1000)',
      ),
    );
    expect(() => mcpServer({ ...required, maxInlineResultBytes: 0 })).toThrow(ConfigurationError);
  });
});

describe('no request leaves the package during a call', () => {
  let world: FileWorld;
  let host: Host;
  let fileHost: http.Server;
  const requests: string[] = [];
  let base = '';

  beforeAll(async () => {
    ({ world, host } = await startWorldHost(hostVariants[0]!, createFileWorld));
    // Stands in for the server that holds the files: it would answer, if anyone asked.
    fileHost = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(PNG_BASE64, 'base64'));
    });
    await new Promise<void>((resolve) => fileHost.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(fileHost.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await host?.close();
    await new Promise((resolve) => fileHost?.close(resolve));
  });

  it('file inputs and file links in results are handed on as URLs, never fetched', async () => {
    const client = new Client({ name: 'files-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(host.path(world.codes.receiptReader), host.url)),
    );
    try {
      world.respond = () => ({ outputs: { seen: true } });
      const inputs = {
        receipt: { url: `${base}/files/receipt.png` },
        attachments: [{ url: `${base}/files/terms.pdf` }],
      };
      const result = await client.callTool({ name: TOOL, arguments: inputs });
      expect(result).toEqual({
        content: [{ type: 'text', text: '{"seen":true}' }],
        structuredContent: { seen: true },
        isError: false,
      });
      expect(world.runs.at(-1)?.inputs).toEqual({
        receipt: { type: 'image', url: `${base}/files/receipt.png` },
        attachments: [{ type: 'document', url: `${base}/files/terms.pdf` }],
      });
    } finally {
      await client.close();
    }
    world.respond = () => ({ answer: 'see the link', files: [{ url: `${base}/results/out.png` }] });
    const reply = await callTool(host, world.codes.fileChat, '2025-11-25', 'File_Chat', { query: 'q' });
    expect((reply.json as { result: { content: unknown[] } }).result.content).toEqual([
      { type: 'text', text: 'see the link' },
      { type: 'resource_link', uri: `${base}/results/out.png`, name: 'out.png', mimeType: 'image/png' },
    ]);
    // The file host is still there and answers; it was never asked.
    expect((await fetch(`${base}/probe`)).status).toBe(200);
    expect(requests).toEqual(['GET /probe']);
  });
});
