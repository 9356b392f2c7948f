import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { finished, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { type NonPublicKind, nonPublicKind } from './addresses.js';

/** Whether a URL whose address is not public may be reached all the same. */
export type IsAllowedUrl = (url: URL) => boolean;

/** A connection refused before it was made: its address is not on the public internet. */
export class NonPublicAddressError extends Error {
  override name = 'NonPublicAddressError';
  constructor(
    readonly address: string,
    readonly kind: NonPublicKind,
  ) {
    super(`${address} is a ${kind} address`);
  }
}

/** RFC 9110 §15.4: the statuses a client follows; 301, 302 and 303 turn a POST into a GET. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** As the Fetch standard: more redirects than this are a network error. */
const MAX_REDIRECTS = 20;

type Lookup = NonNullable<http.RequestOptions['lookup']>;

/**
 * A `fetch` that connects to public addresses only: an IP in the URL is checked before anything is
 * sent, a host name after DNS resolution and before the connection is made, on every request and
 * every redirect it follows, so that a name which resolves elsewhere the next time (DNS rebinding)
 * is caught too. A URL whose address is not public is refused unless `isAllowedUrl` permits it.
 * It speaks HTTP/1.1 through Node's `http` and `https`, with a connection pool of its own, and
 * undoes `gzip`, `deflate` and `br` as `fetch` does; refusals and network failures reject, as
 * `fetch` does, with a `TypeError` whose `cause` says what happened.
 */
export function publicFetch(isAllowedUrl: IsAllowedUrl | undefined): typeof fetch {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  // A hook that throws permits nothing.
  const permitted = (url: URL) => {
    try {
      return isAllowedUrl?.(new URL(url.href)) === true;
    } catch {
      return false;
    }
  };

  const send = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    let method = request.method;
    let url = new URL(request.url);
    const headers = new Headers(request.headers);
    if (!headers.has('accept')) headers.set('accept', '*/*');
    if (!headers.has('accept-encoding')) headers.set('accept-encoding', 'gzip, deflate, br');
    for (let hop = 0; ; hop++) {
      const response = await exchange(url, method, headers, body, request.signal);
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null || request.redirect === 'manual') {
        return response;
      }
      await response.body?.cancel().catch(() => {});
      if (request.redirect === 'error' || hop === MAX_REDIRECTS) {
        throw new TypeError('fetch failed', {
          cause: new Error(`redirect not followed: ${response.status}`),
        });
      }
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers.delete('authorization');
      if (
        response.status === 303 ||
        (method === 'POST' && response.status !== 307 && response.status !== 308)
      ) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      url = next;
    }
  };

  /** One request and its response, to an address checked first. */
  async function exchange(
    url: URL,
    method: string,
    headers: Headers,
    body: Buffer | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    const failed = (cause: unknown) =>
      signal.aborted ? signal.reason : new TypeError('fetch failed', { cause });
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw failed(new Error(`${url.protocol} URLs are not fetched`));
    }
    let addresses: LookupAddress[];
    try {
      addresses = await checkedAddresses(url, permitted);
    } catch (error) {
      throw failed(error);
    }
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const outgoing = (secure ? https : http).request(url, {
        method,
        headers: plainHeaders(headers),
        agent: secure ? agents.https : agents.http,
        // The connection goes to the addresses just checked, and to no other.
        lookup: ((_hostname, options, callback) => {
          const [first] = addresses;
          if (options.all) callback(null, addresses);
          else callback(null, first!.address, first!.family);
        }) as Lookup,
        signal,
      });
      const fail = (error: unknown) => reject(failed(error));
      outgoing.once('error', fail);
      outgoing.once('response', (incoming) => {
        outgoing.off('error', fail);
        resolve(toResponse(incoming, method));
      });
      outgoing.end(body);
    });
  }

  return send as typeof fetch;
}

/**
 * The addresses of the URL's host: the IP it names, or every address its name resolves to. Each
 * must be public, unless the URL is permitted.
 */
async function checkedAddresses(url: URL, permitted: (url: URL) => boolean): Promise<LookupAddress[]> {
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(literal);
  const addresses =
    family === 0
      ? await new Promise<LookupAddress[]>((resolve, reject) => {
          dns.lookup(literal, { all: true }, (error, found) => (error ? reject(error) : resolve(found)));
        })
      : [{ address: literal, family }];
  if (addresses.length === 0) throw new Error(`${literal} has no address`);
  for (const { address } of addresses) {
    const kind = nonPublicKind(address);
    if (kind && !permitted(url)) throw new NonPublicAddressError(address, kind);
  }
  return addresses;
}

/** Node's response as a `Response`, its body decoded as `fetch` decodes it. */
function toResponse(incoming: http.IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
    headers.append(incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string);
  }
  const status = incoming.statusCode ?? 0;
  const empty = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  if (empty) incoming.resume();
  const body = empty ? null : toWeb(decoded(incoming));
  return new Response(body, { status, statusText: incoming.statusMessage ?? '', headers });
}

/** The body with its `Content-Encoding` undone, the last coding applied first. */
function decoded(incoming: http.IncomingMessage): Readable {
  const codings = (incoming.headers['content-encoding'] ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let stream: Readable = incoming;
  for (const coding of codings) {
    const decoder =
      coding === 'gzip' || coding === 'x-gzip'
        ? zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : coding === 'deflate'
          ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
          : coding === 'br'
            ? zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
            : undefined;
    // An unknown coding is passed on as it is, as `fetch` does.
    if (!decoder) return stream;
    const source = stream;
    source.once('error', (error) => decoder.destroy(error));
    decoder.once('close', () => source.destroy());
    stream = source.pipe(decoder);
  }
  return stream;
}

/**
 * A Node stream as a web stream that reads no further ahead than 64 KiB (the web stream's queue),
 * and destroys the Node stream, and with it the connection, when it is cancelled.
 */
function toWeb(stream: Readable): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream.pause();
        stream.on('data', (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) stream.pause();
        });
        finished(stream, (error) => {
          // After a cancellation the web stream is closed already, and takes neither.
          try {
            if (error) controller.error(error);
            else controller.close();
          } catch {}
        });
      },
      pull() {
        stream.resume();
      },
      cancel() {
        stream.destroy();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** The headers as `node:http` takes them (`forEach`, which every `Headers` typing has). */
function plainHeaders(headers: Headers): Record<string, string> {
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => {
    plain[name] = value;
  });
  return plain;
}
