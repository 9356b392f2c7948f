/**
 * How the Express layer writes each kind of reply the protocol core returns (docs/http-contract.md,
 * "How the code is laid out"): 202 with no body, one JSON body (its text as the core made it), or a
 * stream of messages as `text/event-stream`, one `data:` event per message. Written to a real
 * response on 127.0.0.1 and read back whole.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReply } from '../../src/endpoint/write-reply.js';
import type { JsonRpcNotification, JsonRpcResponse } from '../../src/protocol/messages.js';
import type { NowReply } from '../../src/protocol/reply.js';
import { EventStream } from '../../src/protocol/stream/event-stream.js';
import { EVENT_STREAM_HEADERS, type StreamItem } from '../../src/protocol/stream/events.js';
import { send } from '../helpers/hosts.js';

let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** How writing a reply ended: done, or the failure the caller is handed. */
type Outcome = { done: true } | { failed: unknown };

/** Serves one reply for every request; resolves with the server's URL and how each writing ended. */
async function serve(reply: () => NowReply): Promise<{ url: string; written: Promise<Outcome>[] }> {
  const written: Promise<Outcome>[] = [];
  server = http.createServer((_req, res) => {
    const answer = reply();
    written.push(
      new Promise<Outcome>((resolve) => {
        writeReply(res, answer, {
          ended: () => resolve({ done: true }),
          failed: (failed) => resolve({ failed }),
        });
        if (answer.kind !== 'stream') resolve({ done: true });
      }),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written };
}

const response = (id: number, result: unknown): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });

/** A stream reply fed from `items` as they come: their end ends it, their failure fails it. */
function streamReply(items: AsyncIterable<StreamItem>): NowReply {
  const stream = new EventStream();
  (async () => {
    try {
      for await (const item of items) stream.push(item);
      stream.end();
    } catch (error) {
      stream.fail(error);
    }
  })();
  return { kind: 'stream', status: 200, headers: EVENT_STREAM_HEADERS, stream };
}

describe('writing the core’s replies', () => {
  it('accepted: 202 with no body and no content type', async () => {
    const { url } = await serve(() => ({ kind: 'accepted' }));
    const reply = await send(url, { path: '/', body: {} });
    expect({ status: reply.status, type: reply.headers['content-type'], text: reply.text }).toEqual({
      status: 202,
      type: undefined,
      text: '',
    });
  });

  it('json: the body as JSON, with its length', async () => {
    const body = response(1, { tools: [] });
    const { url } = await serve(() => ({ kind: 'json', status: 200, body }));
    const reply = await send(url, { path: '/', body: {} });
    const text = JSON.stringify(body);
    expect({
      status: reply.status,
      type: reply.headers['content-type'],
      length: reply.headers['content-length'],
      text: reply.text,
    }).toEqual({ status: 200, type: 'application/json', length: String(Buffer.byteLength(text)), text });
  });

  it('json with its text already made: that text is what goes on the wire, not the body serialized again', async () => {
    const body = response(2, { answer: 'é' });
    // A text that differs from JSON.stringify(body) only in spacing proves which one was written.
    const json = '{"jsonrpc":"2.0", "id":2, "result":{"answer":"é"}}';
    const { url } = await serve(() => ({ kind: 'json', status: 200, body, json }));
    const reply = await send(url, { path: '/', body: {} });
    expect({ status: reply.status, length: reply.headers['content-length'], text: reply.text }).toEqual({
      status: 200,
      length: String(Buffer.byteLength(json)),
      text: json,
    });
  });

  it('stream: one data event per message, in order, as each comes; then the stream ends', async () => {
    const progress: JsonRpcNotification = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1, total: 2 },
    };
    const final = response(3, { content: [{ type: 'text', text: 'done\nand dusted' }], isError: false });
    async function* messages() {
      yield progress;
      await new Promise((resolve) => setTimeout(resolve, 10));
      yield final;
    }
    const { url, written } = await serve(() => streamReply(messages()));
    const reply = await send(url, { path: '/', body: {} });
    expect({
      status: reply.status,
      type: reply.headers['content-type'],
      cache: reply.headers['cache-control'],
      text: reply.text,
    }).toEqual({
      status: 200,
      type: 'text/event-stream',
      cache: 'no-cache',
      text: `data: ${JSON.stringify(progress)}\n\ndata: ${JSON.stringify(final)}\n\n`,
    });
    expect(await Promise.all(written)).toEqual([{ done: true }]);
  });

  it('stream: a sequence that fails ends the stream after what was sent, and the failure reaches the caller', async () => {
    const failure = new Error('the run broke');
    async function* messages() {
      yield response(4, {});
      throw failure;
    }
    const { url, written } = await serve(() => streamReply(messages()));
    const reply = await send(url, { path: '/', body: {} });
    expect({ status: reply.status, text: reply.text }).toEqual({
      status: 200,
      text: `data: ${JSON.stringify(response(4, {}))}\n\n`,
    });
    expect(await Promise.all(written)).toEqual([{ failed: failure }]);
  });
});
