import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { McpError } from '../errors/mcp-error.js';
import { decodedBody, undecodable } from './content-encoding.js';

/** The request after a host's body parser may have run (body-parser marks what it parsed with `_body`). */
type MaybeParsed = IncomingMessage & { body?: unknown; _body?: boolean };

/**
 * The JSON body: the host's parsed body when its `express.json()` ran, otherwise read from the
 * stream here, inflated when compressed (docs/http-contract.md, row 6a), bounded by `maxBodyBytes`
 * (row 6), and parsed (row 7). No global parser is installed on the host.
 */
export async function readJsonBody(req: MaybeParsed, maxBodyBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > maxBodyBytes) throw tooLarge(maxBodyBytes);
  if (parsedByHost(req)) {
    // body-parser turns an empty body into `{}`; a body declared empty is still empty (row 7).
    if (declared === 0) return parseJson('');
    const body = req.body;
    if (body === undefined) return parseJson(''); // consumed by someone else, and nothing was left for us
    return typeof body === 'string' || Buffer.isBuffer(body) ? parseJson(body.toString()) : body;
  }
  // Destroyed before this read began (behind a host's slow middleware): nothing is left to read.
  if (req.destroyed) throw clientGone();
  return parseJson(await readText(req, decodedBody(req), maxBodyBytes));
}

/**
 * Whether a host parser ran before the router: body-parser 1 (Express 4) marks the request with
 * `_body`, body-parser 2 (Express 5) does not, but leaves the stream read to its end.
 */
export function parsedByHost(req: MaybeParsed): boolean {
  return req._body === true || req.readableEnded;
}

/** Reads `body` (the request, or its inflated form) as text; `maxBodyBytes` counts what is read. */
function readText(req: IncomingMessage, body: Readable, maxBodyBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const detach = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const cleanup = () => {
      detach();
      if (body !== req) body.destroy(); // a destroyed pipe destination unpipes itself
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        cleanup();
        req.resume(); // discard the rest; the reply closes the connection
        reject(tooLarge(maxBodyBytes));
        return;
      }
      chunks.push(chunk);
    };
    // The listeners go at `end`: a streamed reply keeps the request for as long as it runs, and
    // they would keep the body's chunks and text with it.
    const onEnd = () => {
      detach();
      resolve(
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      );
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    // A request closed before its end emits neither `end` nor, unless someone listened when it was
    // aborted, `error` (one the host destroys, say): without this the read would never settle.
    const onClose = () => {
      if (req.readableEnded) return; // an inflated body goes on after the request's own end
      cleanup();
      reject(clientGone());
    };
    body.on('data', onData);
    body.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    if (body !== req) {
      // The inflating stream fails only on data that does not inflate; its listener stays, so
      // nothing it emits after the answer can go unhandled.
      body.on('error', () => {
        cleanup();
        req.resume();
        reject(undecodable());
      });
    }
  });
}

export class BodyTooLarge extends McpError {}

/** The client went away before its body was read: nobody is left to answer (the caller checks `req.destroyed`). */
const clientGone = (): Error => new Error('the client closed the request before its body was read');

function tooLarge(maxBodyBytes: number): McpError {
  return new BodyTooLarge('payloadTooLarge', `Payload Too Large: the body exceeds ${maxBodyBytes} bytes`);
}

function parseJson(text: string): unknown {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(json);
  } catch {
    // Only a failed parse needs to know why: nothing at all, or not JSON.
    if (json.trim() === '') throw new McpError('parseError', 'Parse error: the body is empty');
    throw new McpError('parseError', 'Parse error: the body is not valid JSON');
  }
}
