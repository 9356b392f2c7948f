/**
 * File inputs reach the app normalised (docs/http-contract.md, "The tool"): URLs as the WHATWG URL
 * parser writes them, media types checked (type/subtype tokens, at most 255 characters) or the
 * argument is invalid, as the other file problems are; and the documented 3 MiB `data:` file fits
 * the default body limit on a real host.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFileWorld } from '../helpers/apps.js';
import { hostVariants, worldHostFor } from '../helpers/hosts.js';
import { expectRpcReply, rpcError, rpcResult } from '../helpers/rpc.js';
import { callTool, receiptReaderCore } from '../helpers/sample-files.js';

const TOOL = 'Receipt_Reader';
const IMAGE = 'image (jpg, jpeg, png, webp, gif, svg)';

describe('file inputs, normalised', () => {
  const receipts = receiptReaderCore();
  const { call } = receipts;

  it.each([
    [
      'HTTPS://Files.Example.COM/a b/ré.png?x=1 2#top',
      'https://files.example.com/a%20b/r%C3%A9.png?x=1%202#top',
    ],
    ['https://files.example.com:443/./scans/../a.png', 'https://files.example.com/a.png'],
    ['http://FILES.example.com:80/a.png', 'http://files.example.com/a.png'],
    ['https://xn--bcher-kva.example/a.png', 'https://xn--bcher-kva.example/a.png'],
    ['https://bücher.example/a.png', 'https://xn--bcher-kva.example/a.png'],
    ['DATA:image/png;BASE64,PHN2Zy8+', 'data:image/png;BASE64,PHN2Zy8+'],
    ['Data:image/png;base64,PHN2Zy8+', 'data:image/png;base64,PHN2Zy8+'],
  ])('%s reaches the app as %s, the URL parser’s href', async (url, href) => {
    const reply = await call({ receipt: { url } });

    expect((reply.json as { result: { isError: boolean } }).result.isError).toBe(false);
    expect(receipts.world.runs.map((run) => (run.inputs.receipt as { url: string }).url)).toEqual([href]);
    expect(href).toBe(new URL(url).href);
  });

  it('a media type reaches the app with its type and subtype in lower case, its parameters as given', async () => {
    await call({
      receipt: { url: 'https://files.example.com/a', mime_type: 'IMAGE/PNG' },
      attachments: [{ url: 'https://files.example.com/b', mime_type: 'Text/Plain; charset="UTF-8"' }],
    });

    expect(receipts.world.runs.map((run) => run.inputs)).toEqual([
      {
        receipt: { type: 'image', url: 'https://files.example.com/a', mimeType: 'image/png' },
        attachments: [
          { type: 'document', url: 'https://files.example.com/b', mimeType: 'text/plain; charset="UTF-8"' },
        ],
      },
    ]);
  });

  const MIME_PROBLEM = 'receipt.mime_type must be a media type such as image/png (at most 255 characters)';

  it.each([
    ['no subtype', 'image'],
    ['two slashes', 'image/png/x'],
    ['markup', '<script>/png'],
    ['a space inside', 'image/ png'],
    ['spaces around', ' image/png '],
    ['a line break', 'image/png\r\nX-Injected: 1'],
    ['a parameter without a value', 'text/plain; charset'],
    ['more than 255 characters', `image/${'x'.repeat(250)}`],
  ])('a mime_type with %s is an argument problem, and the app never runs', async (_case, mimeType) => {
    const reply = await call({ receipt: { url: 'https://files.example.com/a.png', mime_type: mimeType } });

    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        content: [{ type: 'text', text: `Invalid arguments for tool ${TOOL}: ${MIME_PROBLEM}` }],
        isError: true,
      }),
    );
    expect(receipts.world.runs).toEqual([]);
  });

  it('255 characters are taken', async () => {
    const mimeType = `image/${'x'.repeat(249)}`;
    expect(mimeType).toHaveLength(255);

    await call({ receipt: { url: 'https://files.example.com/a.png', mime_type: mimeType } });

    expect(receipts.world.runs.map((run) => (run.inputs.receipt as { mimeType: string }).mimeType)).toEqual([
      mimeType,
    ]);
  });

  it('a data: URL whose media type is no media type is an argument problem', async () => {
    const reply = await call({ receipt: { url: 'data:image<svg>;base64,PHN2Zy8+', filename: 'a.png' } });

    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        content: [
          {
            type: 'text',
            text: `Invalid arguments for tool ${TOOL}: receipt.url must name a media type such as image/png, or none, before ;base64`,
          },
        ],
        isError: true,
      }),
    );
    expect(receipts.world.runs).toEqual([]);
  });

  it('before 2025-11-25, a bad media type is a -32602 error, as the other file problems are', async () => {
    const reply = await call({ receipt: { url: 'https://x.example/a.png', mime_type: 'png' } }, '2025-06-18');

    expectRpcReply(
      reply,
      200,
      rpcError(1, -32602, `Invalid arguments for tool ${TOOL}: ${MIME_PROBLEM}`, {
        problems: [MIME_PROBLEM],
      }),
    );
    expect(receipts.world.runs).toEqual([]);
  });

  it('a media type that is valid but of another kind is still a type problem', async () => {
    const reply = await call({ receipt: { url: 'https://x.example/a', mime_type: 'application/pdf' } });

    expect((reply.json as { result: { content: { text: string }[] } }).result.content[0]?.text).toBe(
      `Invalid arguments for tool ${TOOL}: receipt must be of type ${IMAGE}; it is document`,
    );
  });
});

describe('the default body limit', () => {
  const suite = worldHostFor(hostVariants[0]!, createFileWorld);

  beforeAll(() => {
    suite.world.respond = () => ({ outputs: { ok: true } });
  });

  it('fits the documented largest data: file, 3 MiB, with a long media type and file name', async () => {
    const data = randomBytes(3 * 1024 * 1024).toString('base64');
    const mimeType = `image/${'x'.repeat(249)}`;
    const receipt = {
      url: `data:${mimeType};base64,${data}`,
      filename: `${'r'.repeat(200)}.png`,
      mime_type: mimeType,
    };

    const reply = await callTool(suite.host, suite.world.codes.receiptReader, '2025-11-25', TOOL, {
      receipt,
    });

    expectRpcReply(
      reply,
      200,
      rpcResult(1, {
        content: [{ type: 'text', text: '{"ok":true}' }],
        structuredContent: { ok: true },
        isError: false,
      }),
    );
    expect(suite.world.runs.map((run) => (run.inputs.receipt as { url: string }).url.length)).toEqual([
      receipt.url.length,
    ]);
  });
});
