/**
 * The example app's two file apps (README, "Files in and out"), without HTTP: Image Facts reads the header of an
 * image sent as a data: URL (PNG, GIF, JPEG, WebP) and draws a deterministic identicon, a real PNG;
 * Manual Finder answers with a link to a manual. The end-to-end test drives both through a client.
 */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MANUALS_BASE_URL, manualOf, runApp } from '../../example-app/apps.js';
import { identicon, imageFacts, readImageHeader } from '../../example-app/image-facts.js';
import type { AppEvent, AppRun } from '../../src/index.js';
import { PNG_BASE64 } from '../helpers/sample-files.js';

const PNG_1X1 = PNG_BASE64;

/** A PNG decoded far enough to check it: the size from IHDR and the unfiltered RGB rows. */
function decodePng(base64: string) {
  const bytes = Buffer.from(base64, 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: Record<string, Buffer[]> = {};
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    chunks[type] = [...(chunks[type] ?? []), bytes.subarray(at + 8, at + 8 + length)];
    at += 12 + length;
  }
  const header = chunks.IHDR![0]!;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const raw = inflateSync(Buffer.concat(chunks.IDAT!));
  const rows = Array.from({ length: height }, (_, y) =>
    raw.subarray(y * (1 + width * 3), (y + 1) * (1 + width * 3)),
  );
  return { width, height, colourType: header[9], rows, chunkTypes: Object.keys(chunks) };
}

const dataUrl = (mediaType: string, bytes: Buffer) => `data:${mediaType};base64,${bytes.toString('base64')}`;

describe('Image Facts', () => {
  it('reads the format and size of PNG, GIF, JPEG and WebP headers', () => {
    const gif = Buffer.from('GIF89a\x10\x00\x20\x00', 'latin1');
    // SOI, an APP0 segment to skip, then SOF0 with height 0x0120 and width 0x0340.
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x20, 0x03, 0x40,
      0x03,
    ]);
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0);
    webp.write('WEBPVP8X', 8);
    webp.writeUIntLE(639, 24, 3);
    webp.writeUIntLE(479, 27, 3);
    expect(readImageHeader(Buffer.from(PNG_1X1, 'base64'))).toEqual({ format: 'png', width: 1, height: 1 });
    expect(readImageHeader(gif)).toEqual({ format: 'gif', width: 16, height: 32 });
    expect(readImageHeader(jpeg)).toEqual({ format: 'jpeg', width: 832, height: 288 });
    expect(readImageHeader(webp)).toEqual({ format: 'webp', width: 640, height: 480 });
    expect(readImageHeader(Buffer.from('hello'))).toEqual({ format: 'unknown', width: null, height: null });
  });

  it('describes an image sent as a data: URL', () => {
    const facts = imageFacts({ type: 'image', url: `data:image/png;base64,${PNG_1X1}` });
    expect({ ...facts, identicon: undefined }).toEqual({
      summary: 'A PNG image, 1×1 pixels, 70 bytes',
      details: { source: 'data', format: 'png', width: 1, height: 1, bytes: 70 },
      identicon: undefined,
    });
    expect(
      imageFacts({ type: 'image', url: dataUrl('image/png', Buffer.from('not an image')) }).summary,
    ).toBe('An image in an unknown format, size unknown, 12 bytes');
  });

  it('describes any other URL without downloading it', () => {
    const facts = imageFacts({ type: 'image', url: 'https://cdn.example.com/photos/Sunset%20Beach.JPG' });
    expect({ summary: facts.summary, details: facts.details }).toEqual({
      summary:
        'An image at cdn.example.com (Sunset Beach.JPG); not downloaded: this demo reads data: URLs only',
      details: {
        source: 'url',
        host: 'cdn.example.com',
        file: 'Sunset Beach.JPG',
        media_type: null,
        downloaded: false,
      },
    });
  });

  it('names a file whose escapes are malformed as its URL spells it', () => {
    const facts = imageFacts({ type: 'image', url: 'https://cdn.example.com/photos/%E0%A4%A.png' });
    expect(facts.details).toEqual({
      source: 'url',
      host: 'cdn.example.com',
      file: '%E0%A4%A.png',
      media_type: null,
      downloaded: false,
    });
  });

  it('draws a 48×48 RGB PNG identicon, symmetric, the same for the same image and different for another', () => {
    const first = identicon(Buffer.from('one image'));
    const png = decodePng(first.data!);
    expect({ ...first, data: undefined }).toEqual({
      data: undefined,
      mimeType: 'image/png',
      name: 'identicon.png',
      size: Buffer.from(first.data!, 'base64').length,
    });
    expect({
      width: png.width,
      height: png.height,
      colourType: png.colourType,
      chunkTypes: png.chunkTypes,
    }).toEqual({
      width: 48,
      height: 48,
      colourType: 2,
      chunkTypes: ['IHDR', 'IDAT', 'IEND'],
    });
    for (const row of png.rows) {
      expect(row[0]).toBe(0); // no filter
      const pixels = Array.from({ length: 48 }, (_, x) => row.subarray(1 + x * 3, 4 + x * 3).toString('hex'));
      expect(pixels).toEqual([...pixels].reverse());
    }
    expect(new Set(png.rows.flatMap((row) => [row.subarray(1, 4).toString('hex')])).size).toBe(1); // the margin
    expect(identicon(Buffer.from('one image'))).toEqual(first);
    expect(identicon(Buffer.from('another image')).data).not.toBe(first.data);
  });

  it('runs as a workflow: the file input in, the facts and the identicon out', async () => {
    const image = { type: 'image', url: `data:image/png;base64,${PNG_1X1}` } as const;
    const produced = await runApp({ app: { id: 'image-facts' }, inputs: { image } } as unknown as AppRun);
    expect(produced).toEqual({ outputs: imageFacts(image) });
  });
});

describe('Manual Finder', () => {
  it('links the manual named after the product', () => {
    expect(manualOf('  Coffee Maker 3000! ')).toEqual({
      url: `${MANUALS_BASE_URL}coffee-maker-3000.pdf`,
      name: 'coffee-maker-3000.pdf',
      mimeType: 'application/pdf',
    });
    expect(manualOf('Café Crème')).toMatchObject({ name: 'café-crème.pdf' });
    expect(manualOf('?!')).toBeNull();
  });

  const eventsOf = async (query: string) => {
    const produced = await runApp({ app: { id: 'manual-finder' }, inputs: {}, query } as unknown as AppRun);
    const events: AppEvent[] = [];
    for await (const event of produced as AsyncIterable<AppEvent>) events.push(event);
    return events;
  };

  it('streams the answer, then the manual as a message_file event', async () => {
    expect(await eventsOf('Coffee Maker 3000')).toEqual([
      { event: 'message', answer: 'Here is the manual for Coffee Maker 3000: coffee-maker-3000.pdf' },
      { event: 'message_file', file: manualOf('Coffee Maker 3000') },
    ]);
  });

  it('a question without a product name is an error event', async () => {
    expect(await eventsOf('???')).toEqual([
      { event: 'error', message: 'name a product, e.g. "Coffee Maker 3000"' },
    ]);
  });
});
