/**
 * Image Facts, the demo app that takes a file and returns one: facts about an image, and a
 * generated image (an identicon of it). The image comes as a URL the client sent (README, "Files in and out"): a
 * base64 `data:` URL is read here; any other URL is only described, never downloaded, as the demo
 * uses no network.
 */
import { createHash } from 'node:crypto';
import { encodePng } from './png.js';

/**
 * `{summary, details, identicon}` for an image file input (`{type, url, filename?, mimeType?}`).
 * @param {import('express-app-mcp').FileInput} image
 */
export function imageFacts(image) {
  const bytes = dataUrlBytes(image.url);
  if (bytes) {
    const { format, width, height } = readImageHeader(bytes);
    const size = width === null ? 'size unknown' : `${width}×${height} pixels`;
    return {
      summary: `${format === 'unknown' ? 'An image in an unknown format' : `A ${format.toUpperCase()} image`}, ${size}, ${bytes.length} bytes`,
      details: { source: 'data', format, width, height, bytes: bytes.length },
      identicon: identicon(bytes),
    };
  }
  const url = new URL(image.url);
  const file = image.filename ?? (lastSegment(url) || null);
  return {
    summary: `An image at ${url.host}${file ? ` (${file})` : ''}; not downloaded: this demo reads data: URLs only`,
    details: { source: 'url', host: url.host, file, media_type: image.mimeType ?? null, downloaded: false },
    identicon: identicon(Buffer.from(image.url)),
  };
}

/** The file name a URL's path ends with, decoded; as sent when its escapes are malformed (`%E0%A4%A`). */
function lastSegment(url) {
  const segment = url.pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The bytes of a base64 `data:` URL, or `null` for any other URL. */
function dataUrlBytes(url) {
  const match = /^data:[^,]*;base64,(.*)$/is.exec(url);
  return match ? Buffer.from(match[1], 'base64') : null;
}

/**
 * The format and size an image's first bytes tell: PNG, GIF, JPEG and WebP.
 * @param {Buffer} bytes
 * @returns {{ format: string, width: number | null, height: number | null }}
 */
export function readImageHeader(bytes) {
  const ascii = (start, end) => bytes.subarray(start, end).toString('latin1');
  if (bytes.length >= 24 && ascii(1, 4) === 'PNG') {
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && ascii(0, 4) === 'GIF8') {
    return { format: 'gif', width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8)
    return { format: 'jpeg', ...jpegSize(bytes) };
  if (bytes.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') {
    return { format: 'webp', ...webpSize(bytes, ascii(12, 16)) };
  }
  return { format: 'unknown', width: null, height: null };
}

/** A JPEG's size is in its first start-of-frame segment (markers C0–CF but C4, C8, CC). */
function jpegSize(bytes) {
  let at = 2;
  while (at + 9 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1];
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5) };
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return { width: null, height: null };
}

function webpSize(bytes, chunk) {
  if (chunk === 'VP8X') return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') {
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  return { width: null, height: null };
}

const CELLS = 5;
const CELL_PX = 8;
const MARGIN_PX = 4;

/**
 * A 48×48 identicon as an `AppFile`: a 5×5 left-right symmetric pattern and a colour, both from the
 * SHA-256 of `seed`, so the same image always gets the same picture.
 * @param {Buffer} seed
 * @returns {import('express-app-mcp').AppFile}
 */
export function identicon(seed) {
  const hash = createHash('sha256').update(seed).digest();
  const colour = [hash[0], hash[1], hash[2]].map((value) => 40 + (value % 160));
  const background = [240, 240, 240];
  const on = (column, row) => (hash[3 + row * 3 + Math.min(column, CELLS - 1 - column)] & 1) === 1;
  const side = CELLS * CELL_PX + 2 * MARGIN_PX;
  const png = encodePng(side, side, (x, y) => {
    const column = Math.floor((x - MARGIN_PX) / CELL_PX);
    const row = Math.floor((y - MARGIN_PX) / CELL_PX);
    const inside = column >= 0 && column < CELLS && row >= 0 && row < CELLS;
    return inside && on(column, row) ? colour : background;
  });
  return { data: png.toString('base64'), mimeType: 'image/png', name: 'identicon.png', size: png.length };
}
