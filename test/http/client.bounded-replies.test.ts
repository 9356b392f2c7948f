/**
 * A hostile remote server cannot fill the host's memory: `connectMcpServer` reads at most
 * `maxReplyBytes` of a reply or of one event (counted once decompressed) and at most `maxTools`
 * tools, and past either the request fails at once as an `invalid-reply`, the connection dropped
 * (docs/security.md). The floods are 300 MiB, made on the fly by a hand-written server that stops
 * when the client leaves; the bound on the memory the host grows by is generous (150 MiB).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcpServer } from '../../src/index.js';
import { type FloodReport, type FloodShape, floodReply, MiB, peakRssGrowth } from '../helpers/flood.js';
import {
  answerModernRequest,
  answerOrAccept,
  failure,
  type RemoteServer,
  replyResult,
  startRawServer,
} from '../helpers/remote-servers.js';

const FLOOD_BYTES = 300 * MiB;
const GROWTH_BOUND = 150 * MiB;

let server: RemoteServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a 300 MiB reply to tools/list', () => {
  it.each(['json', 'sse', 'gzip'] as FloodShape[])(
    'as %s: an invalid reply at maxReplyBytes, the connection dropped, the memory not held',
    async (shape) => {
      const floods: Promise<FloodReport>[] = [];
      server = await startRawServer((message, res) => {
        if (message?.method === 'tools/list') floods.push(floodReply(res, message.id, shape, FLOOD_BYTES));
        else answerOrAccept(message, res);
      });
      const connection = await connectMcpServer(server.url, { protocol: '2025', timeoutMs: 60_000 });

      const { result: error, growth } = await peakRssGrowth(() => failure(connection.listTools()));
      const [sent] = await Promise.all(floods);
      await connection.close();

      const part = shape === 'sse' ? 'an event' : 'a reply';
      expect({ kind: error.kind, message: error.message }).toEqual({
        kind: 'invalid-reply',
        message: `MCP server ${server.url}: sent ${part} of more than ${10 * MiB} bytes during tools/list, more than the client reads (maxReplyBytes)`,
      });
      expect(sent?.clientLeft).toBe(true);
      expect(sent?.made).toBeLessThan(FLOOD_BYTES);
      expect(growth).toBeLessThan(GROWTH_BOUND);
    },
  );

  it('three at once, in the 2026-07-28 era: each fails alone, the memory not held', async () => {
    const floods: Promise<FloodReport>[] = [];
    server = await startRawServer((message, res) => {
      if (message?.method === 'tools/list') floods.push(floodReply(res, message.id, 'gzip', FLOOD_BYTES));
      else answerOrAccept(message, res, answerModernRequest);
    });
    const url = server.url;
    const connections = await Promise.all(
      [1, 2, 3].map(() => connectMcpServer(url, { protocol: '2026-07-28', timeoutMs: 60_000 })),
    );

    const { result: errors, growth } = await peakRssGrowth(() =>
      Promise.all(connections.map((connection) => failure(connection.listTools()))),
    );
    const sent = await Promise.all(floods);
    await Promise.all(connections.map((connection) => connection.close()));

    expect(errors.map((error) => error.kind)).toEqual(['invalid-reply', 'invalid-reply', 'invalid-reply']);
    expect(sent.map((report) => report.clientLeft)).toEqual([true, true, true]);
    expect(growth).toBeLessThan(GROWTH_BOUND);
  });
});

describe('maxReplyBytes', () => {
  it('bounds each event of a stream, not the stream: many small events pass', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method !== 'tools/call') return answerOrAccept(message, res);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const token = (message.params as { _meta?: { progressToken?: unknown } })._meta?.progressToken;
      for (let step = 1; step <= 20; step++) {
        const progress = { progressToken: token, progress: step, total: 20, message: 'x'.repeat(200) };
        res.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: progress })}\n\n`,
        );
      }
      const result = { content: [{ type: 'text', text: 'done' }] };
      res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
    });
    const connection = await connectMcpServer(server.url, { protocol: '2025', maxReplyBytes: 1000 });
    const progress: number[] = [];

    const result = await connection.callTool('echo', {}, { onProgress: (p) => progress.push(p.progress) });
    await connection.close();

    expect({ text: result.text, progress: progress.length }).toEqual({ text: 'done', progress: 20 });
  });

  it('a reply one byte over the limit fails, one at the limit passes', async () => {
    const text = 'y'.repeat(500);
    server = await startRawServer((message, res) => {
      if (message?.method !== 'tools/call') return answerOrAccept(message, res);
      replyResult(res, message.id, { content: [{ type: 'text', text }] });
    });
    const size = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text }] },
    }).length;
    const atLimit = await connectMcpServer(server.url, { protocol: '2025', maxReplyBytes: size });
    const overLimit = await connectMcpServer(server.url, { protocol: '2025', maxReplyBytes: size - 1 });

    // The listing comes first and is small; the call's reply (id 2 on each connection) is measured.
    await atLimit.listTools();
    await overLimit.listTools();
    const passed = await atLimit.callTool('echo');
    const error = await failure(overLimit.callTool('echo'));
    await Promise.all([atLimit.close(), overLimit.close()]);

    expect(passed.text).toBe(text);
    expect(error.message).toBe(
      `MCP server ${server.url}: sent a reply of more than ${size - 1} bytes during tools/call, more than the client reads (maxReplyBytes)`,
    );
  });

  it('is an option checked like the others', async () => {
    await expect(connectMcpServer('http://127.0.0.1:1/mcp', { maxReplyBytes: 0 })).rejects.toThrow(
      /invalid option "maxReplyBytes"/,
    );
    await expect(connectMcpServer('http://127.0.0.1:1/mcp', { maxTools: 1.5 })).rejects.toThrow(
      /invalid option "maxTools"/,
    );
  });
});

describe('maxTools', () => {
  const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

  it('1,001 tools in one page: an invalid reply, not a list', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method !== 'tools/list') return answerOrAccept(message, res);
      replyResult(res, message.id, { tools: Array.from({ length: 1001 }, (_, i) => tool(`t${i}`)) });
    });
    const connection = await connectMcpServer(server.url, { protocol: '2025' });

    const error = await failure(connection.listTools());
    await connection.close();

    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'invalid-reply',
      message: `MCP server ${server.url}: answered tools/list with more than 1000 tools, more than the client reads (maxTools)`,
    });
  });

  it('counts over the pages, and stops asking at the page that passes it', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method !== 'tools/list') return answerOrAccept(message, res);
      const page = Number((message.params as { cursor?: string } | undefined)?.cursor ?? 0);
      const tools = Array.from({ length: 4 }, (_, i) => tool(`p${page}t${i}`));
      replyResult(res, message.id, { tools, nextCursor: String(page + 1) });
    });
    const connection = await connectMcpServer(server.url, { protocol: '2025', maxTools: 10 });

    const error = await failure(connection.listTools());
    await connection.close();

    expect(error.reason).toBe(
      'answered tools/list with more than 10 tools, more than the client reads (maxTools)',
    );
    expect(server.methods().filter((method) => method === 'tools/list')).toHaveLength(3);
  });

  it('exactly maxTools tools are listed', async () => {
    server = await startRawServer((message, res) => {
      if (message?.method !== 'tools/list') return answerOrAccept(message, res);
      replyResult(res, message.id, { tools: Array.from({ length: 3 }, (_, i) => tool(`t${i}`)) });
    });
    const connection = await connectMcpServer(server.url, { protocol: '2025', maxTools: 3 });

    const tools = await connection.listTools();
    await connection.close();

    expect(tools.map((listed) => listed.name)).toEqual(['t0', 't1', 't2']);
  });
});
