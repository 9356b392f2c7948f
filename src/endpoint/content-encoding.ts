import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { McpError } from '../errors/mcp-error.js';

/**
 * The content codings a request body may arrive in (RFC 9110 §8.4.1), the ones body-parser's
 * `express.json()` reads; `identity` is no coding at all.
 */
const DECODERS: Readonly<Record<string, (() => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress) | null>> =
  {
    identity: null,
    gzip: () => zlib.createGunzip(),
    deflate: () => zlib.createInflate(),
    br: () => zlib.createBrotliDecompress(),
  };

/**
 * The body as it was sent, decoded: the request itself, or an inflating stream fed by it. A
 * coding it cannot read (or several, one over another) is 415, as RFC 9110 §15.5.16 says
 * (docs/http-contract.md, row 6a).
 */
export function decodedBody(req: IncomingMessage): Readable {
  const header = req.headers['content-encoding'];
  if (header === undefined) return req;
  // An empty header names no coding, as express.json() reads it.
  const coding = header.trim().toLowerCase() || 'identity';
  const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
  if (decoder === undefined) {
    throw new McpError(
      'unsupportedMediaType',
      `Unsupported Media Type: Content-Encoding ${header} is not supported`,
    );
  }
  if (decoder === null) return req;
  const inflating = decoder();
  req.pipe(inflating);
  return inflating;
}

/** What a body that does not inflate is: a body that cannot be read as JSON (docs/http-contract.md, row 7). */
export const undecodable = () =>
  new McpError('parseError', 'Parse error: the body could not be decompressed');
