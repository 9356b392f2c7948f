/**
 * Compressed request bodies, read as `express.json()` reads them (RFC 9110 §8.4): `gzip`,
 * `deflate` and `br` are inflated and then handled like any body, with `maxBodyBytes` counted
 * after inflation (a decompression bomb is a 413); an encoding the endpoint cannot read is 415;
 * a body that does not inflate is a 400 parse error.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHost, startEchoHost } from '../helpers/apps.js';
import { expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

const MAX_BODY_BYTES = 64 * 1024;

const encoders = {
  gzip: promisify(zlib.gzip),
  deflate: promisify(zlib.deflate),
  br: promisify(zlib.brotliCompress),
} as const;

let apps: DemoHost;
beforeAll(async () => {
  apps = await startEchoHost(
    [{ id: 'echo', name: 'Echo', mode: 'workflow', inputForm: [{ type: 'paragraph', variable: 'text' }] }],
    { maxBodyBytes: MAX_BODY_BYTES },
  );
});
afterAll(() => apps.close());

const post = (body: Buffer | string, encoding: string) =>
  apps.host.post(apps.codes.echo as string, body, { 'content-encoding': encoding });

const call = (text: string) =>
  JSON.stringify(request(5, 'tools/call', { name: 'Echo', arguments: { text } }));
const called = (text: string) =>
  rpcResult(5, {
    content: [{ type: 'text', text: JSON.stringify({ inputs: { text } }) }],
    isError: false,
  });

describe('Content-Encoding of the request body', () => {
  it.each(Object.keys(encoders) as (keyof typeof encoders)[])(
    '%s is inflated and served like a plain body',
    async (encoding) => {
      const text = 'compressed '.repeat(200);
      expectRpcReply(await post(await encoders[encoding](call(text)), encoding), 200, called(text));
    },
  );

  it('the coding name is case-insensitive, and identity or an empty header means none', async () => {
    expectRpcReply(await post(await encoders.gzip(call('a')), 'GZip'), 200, called('a'));
    expectRpcReply(await post(call('b'), 'identity'), 200, called('b'));
    expectRpcReply(await post(call('c'), ''), 200, called('c'));
  });

  it('a body that inflates beyond maxBodyBytes answers 413 and closes the connection', async () => {
    const bomb = await encoders.gzip(call('0'.repeat(50 * MAX_BODY_BYTES)));
    expect(bomb.length).toBeLessThan(MAX_BODY_BYTES);
    const reply = await post(bomb, 'gzip');
    expectRpcReply(
      reply,
      413,
      rpcError(null, -32600, `Payload Too Large: the body exceeds ${MAX_BODY_BYTES} bytes`),
    );
    expect(reply.headers.connection).toBe('close');
  });

  it.each(['zstd', 'compress', 'gzip, br', 'x-unknown'])(
    'an encoding it cannot read (%s) answers 415',
    async (encoding) => {
      expectRpcReply(
        await post(call('a'), encoding),
        415,
        rpcError(null, -32600, `Unsupported Media Type: Content-Encoding ${encoding} is not supported`),
      );
    },
  );

  it('a body that does not inflate answers 400 -32700', async () => {
    expectRpcReply(
      await post(call('not compressed at all'), 'gzip'),
      400,
      rpcError(null, -32700, 'Parse error: the body could not be decompressed'),
    );
  });

  it('a compressed body that is not JSON answers 400 -32700 as a plain one does', async () => {
    expectRpcReply(
      await post(await encoders.deflate('{not json'), 'deflate'),
      400,
      rpcError(null, -32700, 'Parse error: the body is not valid JSON'),
    );
  });
});
