/**
 * Long runs on the wire (README, "Long runs"): a `tools/call` reply stays JSON when the run has
 * nothing to say before its result, and becomes a server-sent event stream when it has: the app's
 * progress for the request's token, or a heartbeat after `heartbeatMs` of silence. Read with a raw
 * HTTP client, event by event, against real Express 5 and Express 4 hosts; the app is driven by
 * the test, so every step happens in a known order and nothing depends on timing but heartbeats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerOptions } from '../../src/index.js';
import { sleep } from '../helpers/common.js';
import {
  type Host,
  type HostVariant,
  hostVariants,
  loadPackage,
  loadWorld,
  startHost,
} from '../helpers/hosts.js';
import { notification } from '../helpers/rpc.js';
import {
  callRequest,
  createStreamingWorld,
  dataOf,
  event,
  expectStreamHeaders,
  KEEP_ALIVE_COMMENT,
  type LiveReply,
  postLive,
  progress,
  type StreamingWorld,
} from '../helpers/streaming.js';

const V2025 = { 'mcp-protocol-version': '2025-11-25' };
const MODERN = '2026-07-28';

const outputsResult = (outputs: Record<string, unknown>) => ({
  content: [{ type: 'text', text: JSON.stringify(outputs) }],
  isError: false,
  structuredContent: outputs,
});
const errorResult = (text: string) => ({ content: [{ type: 'text', text }], isError: true });
const response = (id: number | string, result: unknown) => ({ jsonrpc: '2.0', id, result });

/** A whole JSON reply, read from a live one. */
async function expectJsonReply(reply: LiveReply, body: unknown): Promise<void> {
  const text = (await reply.rest()).join('');
  expect({
    status: reply.status,
    contentType: reply.headers['content-type'],
    contentLength: reply.headers['content-length'],
    body: JSON.parse(text),
  }).toEqual({
    status: 200,
    contentType: 'application/json',
    contentLength: String(Buffer.byteLength(text)),
    body,
  });
}

/**
 * Reads a stream's events up to the first progress notification that `found` accepts, and returns
 * them all (heartbeats may come first on a slow machine).
 */
async function readUntil(
  reply: LiveReply,
  found: (params: { progress: number }) => boolean,
): Promise<(string | null)[]> {
  const blocks: (string | null)[] = [];
  for (let block = await reply.next(); block !== null; block = await reply.next()) {
    blocks.push(block);
    if (found(dataOf(block).params as { progress: number })) return blocks;
  }
  throw new Error(`the stream ended before the awaited progress: ${blocks.join('\n')}`);
}

const variants = [hostVariants[0], hostVariants[2]] as HostVariant[]; // Express 5 and Express 4

describe.each(variants)('streamed tools/call replies on $name', (variant) => {
  const hosts: Host[] = [];
  let world: StreamingWorld;
  /** Heartbeats every 100 ms: slow enough to drive the app between them, fast enough for a test. */
  let host: Host;
  /** Heartbeats off. */
  let quiet: Host;
  /** The default heartbeat, 10 s: no test waits that long. */
  let patient: Host;

  async function hostWith(overrides: Partial<McpServerOptions>): Promise<Host> {
    const pkg = await loadPackage(variant.major);
    const started = await startHost(variant, pkg, world.options(overrides));
    hosts.push(started);
    return started;
  }

  beforeAll(async () => {
    world = (await loadWorld(variant, createStreamingWorld)).world;
    host = await hostWith({ heartbeatMs: 100 });
    quiet = await hostWith({ heartbeatMs: 0 });
    patient = await hostWith({});
  });
  afterAll(async () => {
    await Promise.all(hosts.map((started) => started.close()));
  });

  const post = (target: Host, payload: unknown, headers: Record<string, string | undefined> = V2025) =>
    postLive(target.url, target.path(world.codes.report), payload, headers);

  describe('a run with nothing to say before its result', () => {
    it('answers JSON with a Content-Length, heartbeats on: progress without a token is nothing to say', async () => {
      const reply = await postLive(
        patient.url,
        patient.path(world.codes.quick),
        callRequest(1, 'Quick'),
        V2025,
      );

      await expectJsonReply(reply, response(1, outputsResult({ done: true })));
    });

    it('a run that finishes before the first heartbeat answers JSON, even with a progress token', async () => {
      const pending = post(patient, callRequest(3, 'Report', 'tok-3'));
      const run = await world.nextRun();
      run.finish({ pages: 3 });

      await expectJsonReply(await pending, response(3, outputsResult({ pages: 3 })));
    });

    it('a client that accepts only JSON gets JSON, however long the run and whatever it reports', async () => {
      const pending = post(host, callRequest(4, 'Report', 'tok-4'), { ...V2025, accept: 'application/json' });
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, total: 2, message: 'half way' });
      await sleep(250); // two heartbeats' worth of silence
      run.finish({ pages: 4 });

      await expectJsonReply(await pending, response(4, outputsResult({ pages: 4 })));
    });

    it('with heartbeats off and no progress token, a slow run still answers JSON', async () => {
      const pending = post(quiet, callRequest(5, 'Report'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, message: 'nobody asked' });
      await sleep(150);
      run.finish({ pages: 5 });

      await expectJsonReply(await pending, response(5, outputsResult({ pages: 5 })));
    });
  });

  describe('progress for a progress token', () => {
    it('the first progress event turns the reply into an event stream; the response is the last event', async () => {
      const pending = post(quiet, callRequest(10, 'Report', 'tok-10'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, total: 3, message: 'collecting' });
      const reply = await pending;

      expectStreamHeaders(reply);
      expect(await reply.next()).toBe(
        event(progress({ progressToken: 'tok-10', progress: 1, total: 3, message: 'collecting' })),
      );
      run.emit({ event: 'progress', progress: 2, total: 3, message: 'writing' });
      expect(await reply.next()).toBe(
        event(progress({ progressToken: 'tok-10', progress: 2, total: 3, message: 'writing' })),
      );
      run.emit({ event: 'progress', progress: 3, total: 3 });
      run.finish({ pages: 10 });

      expect(await reply.rest()).toEqual([
        event(progress({ progressToken: 'tok-10', progress: 3, total: 3 })),
        event(response(10, outputsResult({ pages: 10 }))),
      ]);
    });

    it('progress strictly increases: values that would not increase, or are not numbers, are dropped', async () => {
      const pending = post(quiet, callRequest(11, 'Report', 7));
      const run = await world.nextRun();
      for (const value of [1, 1, 0.5, 2, Number.NaN, -1, 2, 3]) {
        run.emit({ event: 'progress', progress: value });
      }
      run.emit({ event: 'progress', progress: '4' } as never);
      run.finish({ pages: 11 });
      const reply = await pending;

      expect(await reply.rest()).toEqual([
        event(progress({ progressToken: 7, progress: 1 })),
        event(progress({ progressToken: 7, progress: 2 })),
        event(progress({ progressToken: 7, progress: 3 })),
        event(response(11, outputsResult({ pages: 11 }))),
      ]);
    });

    it('a message is sent from protocol 2025-03-26 on; 2024-11-05 has no message field', async () => {
      const old = post(quiet, callRequest(12, 'Report', 'tok-12'), { 'mcp-protocol-version': '2024-11-05' });
      const oldRun = await world.nextRun();
      oldRun.emit({ event: 'progress', progress: 1, total: 2, message: 'reading' });
      oldRun.finish({ pages: 12 });
      const oldReply = await old;

      const early = post(quiet, callRequest(13, 'Report', 'tok-13'), {}); // no header: 2025-03-26
      const earlyRun = await world.nextRun();
      earlyRun.emit({ event: 'progress', progress: 1, total: 2, message: 'reading' });
      earlyRun.finish({ pages: 13 });
      const earlyReply = await early;

      const basic = (outputs: Record<string, unknown>) => ({
        content: [{ type: 'text', text: JSON.stringify(outputs) }],
        isError: false,
      });
      expect(await oldReply.rest()).toEqual([
        event(progress({ progressToken: 'tok-12', progress: 1, total: 2 })),
        event(response(12, basic({ pages: 12 }))),
      ]);
      expect(await earlyReply.rest()).toEqual([
        event(progress({ progressToken: 'tok-13', progress: 1, total: 2, message: 'reading' })),
        event(response(13, basic({ pages: 13 }))),
      ]);
    });

    it('progress without a progress token is not sent: the reply waits for heartbeats or the result', async () => {
      const pending = post(quiet, callRequest(14, 'Report'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, total: 2 });
      run.finish({ pages: 14 });

      await expectJsonReply(await pending, response(14, outputsResult({ pages: 14 })));
    });
  });

  describe('heartbeats', () => {
    it('without a progress token, a heartbeat is an SSE comment line, which turns the reply into a stream', async () => {
      const pending = post(host, callRequest(20, 'Report'));
      const run = await world.nextRun();
      const reply = await pending; // the first heartbeat opens the stream

      expectStreamHeaders(reply);
      expect(await reply.next()).toBe(KEEP_ALIVE_COMMENT);
      expect(await reply.next()).toBe(KEEP_ALIVE_COMMENT);
      run.finish({ pages: 20 });

      const rest = await reply.rest();
      expect(rest.at(-1)).toBe(event(response(20, outputsResult({ pages: 20 }))));
      expect(rest.slice(0, -1).every((block) => block === KEEP_ALIVE_COMMENT)).toBe(true);
    });

    it('with a progress token, heartbeats are progress notifications below the next step, keeping total and message', async () => {
      const pending = post(host, callRequest(21, 'Report', 'tok-21'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 2, total: 5, message: 'stage 2 of 5' });
      const reply = await pending;
      const blocks = await readUntil(reply, (note) => note.progress === 2);
      for (let i = 0; i < 3; i++) blocks.push(await reply.next()); // three heartbeats at least
      run.emit({ event: 'progress', progress: 3, total: 5, message: 'stage 3 of 5' });
      run.finish({ pages: 21 });
      blocks.push(...(await reply.rest()));

      const messages = blocks.map(dataOf);
      expect(messages.at(-1)).toEqual(response(21, outputsResult({ pages: 21 })));
      const notes = messages.slice(0, -1).map((message) => message.params as { progress: number });
      const values = notes.map((note) => note.progress);
      expect(values.every((value, index) => index === 0 || value > values[index - 1]!)).toBe(true);
      const [second, third] = [values.indexOf(2), values.indexOf(3)];
      expect(notes[second]).toEqual({
        progressToken: 'tok-21',
        progress: 2,
        total: 5,
        message: 'stage 2 of 5',
      });
      expect(notes[third]).toEqual({
        progressToken: 'tok-21',
        progress: 3,
        total: 5,
        message: 'stage 3 of 5',
      });
      expect(third - second).toBeGreaterThanOrEqual(4);
      // Heartbeats after the app's value n stay strictly between n and n + 1 and keep its total and
      // message; any before it (a slow start) count from 0, without a total.
      for (const [index, note] of notes.entries()) {
        if (index === second || index === third) continue;
        if (index < second) {
          expect(note).toEqual({ progressToken: 'tok-21', progress: note.progress });
          expect(note.progress > 0 && note.progress < 1).toBe(true);
          continue;
        }
        const [from, stage] = index < third ? [2, 'stage 2 of 5'] : [3, 'stage 3 of 5'];
        expect(note).toEqual({ progressToken: 'tok-21', progress: note.progress, total: 5, message: stage });
        expect(note.progress > from && note.progress < from + 1).toBe(true);
      }
    });

    it('heartbeats before any progress count from 0 towards 1, without a total', async () => {
      const pending = post(host, callRequest(22, 'Report', 'tok-22'));
      const run = await world.nextRun();
      const reply = await pending;
      const first = dataOf(await reply.next());
      const second = dataOf(await reply.next());
      run.finish({ pages: 22 });
      await reply.rest();

      const [a, b] = [first, second].map((beat) => (beat.params as { progress: number }).progress);
      expect(first).toEqual(progress({ progressToken: 'tok-22', progress: a }));
      expect(second).toEqual(progress({ progressToken: 'tok-22', progress: b }));
      expect(0 < a! && a! < b! && b! < 1).toBe(true);
    });

    it('a heartbeat never passes the total the app gave', async () => {
      const pending = post(host, callRequest(23, 'Report', 'tok-23'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 0.25, total: 1, message: 'a quarter' });
      const reply = await pending;
      await readUntil(reply, (note) => note.progress === 0.25);
      const beat = dataOf(await reply.next());
      run.emit({ event: 'progress', progress: 0.5, total: 1 });
      run.finish({ pages: 23 });
      const rest = await reply.rest();

      const value = (beat.params as { progress: number }).progress;
      expect(value > 0.25 && value < 0.26).toBe(true); // a thousandth of the way to 1, not a jump
      expect(beat).toEqual(
        progress({ progressToken: 'tok-23', progress: value, total: 1, message: 'a quarter' }),
      );
      expect(rest.map((block) => dataOf(block))).toContainEqual(
        progress({ progressToken: 'tok-23', progress: 0.5, total: 1 }),
      );
    });

    it('nothing is sent after the response, not even a comment: the stream ends with it', async () => {
      const pending = post(host, callRequest(24, 'Report'));
      const run = await world.nextRun();
      const reply = await pending;
      expect(await reply.next()).toBe(KEEP_ALIVE_COMMENT);
      run.finish({ pages: 24 });
      const rest = await reply.rest(); // resolves only once the server has ended the body

      expect(rest.at(-1)).toBe(event(response(24, outputsResult({ pages: 24 }))));
      expect(await reply.next()).toBeNull();
    });
  });

  describe('how a streamed call ends', () => {
    it('a failing app ends the stream with its error result', async () => {
      const pending = post(quiet, callRequest(30, 'Report', 'tok-30'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1 });
      const reply = await pending;
      expect(await reply.next()).toBe(event(progress({ progressToken: 'tok-30', progress: 1 })));
      const failure = new Error('disk full while writing the report');
      run.fail(failure);

      expect(await reply.rest()).toEqual([event(response(30, errorResult('the app failed to run')))]);
      expect(world.reports.at(-1)).toEqual({
        error: failure,
        context: expect.objectContaining({ phase: 'run' }),
      });
    });

    it('an internal failure once streaming ends the stream with a JSON-RPC error, its cause told to onError only', async () => {
      const storeDown = new Error('end_users insert failed: connection reset');
      const { resolveServer } = world.options();
      const failing = await hostWith({
        heartbeatMs: 50,
        // The end user is stored after the first heartbeat has gone out, and that fails.
        resolveServer: async (code, req) => {
          const resolved = await resolveServer(code, req);
          return resolved && { ...resolved, endUser: () => sleep(200).then(() => Promise.reject(storeDown)) };
        },
      });
      const reply = await post(failing, callRequest(35, 'Report'));
      const blocks = await reply.rest();

      expectStreamHeaders(reply);
      expect(blocks.at(-1)).toBe(
        event({ jsonrpc: '2.0', id: 35, error: { code: -32603, message: 'Internal error' } }),
      );
      expect(blocks.slice(0, -1).every((block) => block === KEEP_ALIVE_COMMENT)).toBe(true);
      expect(world.reports.at(-1)).toEqual({
        error: storeDown,
        context: expect.objectContaining({ phase: 'dispatch' }),
      });
    });

    it('callTimeoutMs gives an isError result on the stream, as on JSON', async () => {
      const timed = await hostWith({ heartbeatMs: 50, callTimeoutMs: 300 });
      const pending = post(timed, callRequest(31, 'Report'));
      const run = await world.nextRun();
      const reply = await pending;
      const reason = await run.aborted;
      const rest = await reply.rest();

      expectStreamHeaders(reply);
      expect(reason).toEqual(expect.objectContaining({ message: 'the app did not finish within 300 ms' }));
      expect(rest.at(-1)).toBe(event(response(31, errorResult('the app did not finish within 300 ms'))));
      expect(rest.slice(0, -1).every((block) => block === KEEP_ALIVE_COMMENT)).toBe(true);
    });

    it('notifications/cancelled aborts the run and ends the stream without a response', async () => {
      const pending = post(quiet, callRequest(32, 'Report', 'tok-32'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1 });
      const reply = await pending;
      expect(await reply.next()).toBe(event(progress({ progressToken: 'tok-32', progress: 1 })));

      const cancel = await postLive(
        quiet.url,
        quiet.path(world.codes.report),
        notification('notifications/cancelled', { requestId: 32, reason: 'the user gave up' }),
        V2025,
      );
      expect(cancel.status).toBe(202);
      expect(await reply.rest()).toEqual([]);
      expect(await run.aborted).toBeDefined();
      run.finish({ pages: 32 }); // too late: nobody hears it
    });

    it('in the 2025 revisions, closing the stream does not cancel the run', async () => {
      const pending = post(quiet, callRequest(33, 'Report', 'tok-33'));
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1 });
      const reply = await pending;
      await reply.next();
      reply.close();
      await sleep(100); // time for the close to reach the server

      expect(run.run.signal.aborted).toBe(false);
      run.finish({ pages: 33 });
    });

    it('errors before the run stay JSON errors with their status: an unknown tool', async () => {
      const reply = await post(host, callRequest(34, 'Nope', 'tok-34'));

      await expectJsonReply(reply, {
        jsonrpc: '2.0',
        id: 34,
        error: { code: -32602, message: 'Unknown tool: Nope' },
      });
    });
  });

  describe('protocol 2026-07-28', () => {
    const modernHeaders = {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'Report',
    };
    const modernCall = (id: number, token?: string) =>
      callRequest(id, 'Report', token, {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      });
    const SERVER_META = {
      'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: 'express-app-mcp' }),
    };

    it('streams progress for the token in params._meta, and the complete result last', async () => {
      const pending = post(quiet, modernCall(40, 'tok-40'), modernHeaders);
      const run = await world.nextRun();
      run.emit({ event: 'progress', progress: 1, total: 2, message: 'drafting' });
      const reply = await pending;
      expectStreamHeaders(reply);
      expect(await reply.next()).toBe(
        event(progress({ progressToken: 'tok-40', progress: 1, total: 2, message: 'drafting' })),
      );
      run.finish({ pages: 40 });
      const [last, ...after] = await reply.rest();

      expect(dataOf(last!)).toEqual(
        response(40, { resultType: 'complete', ...outputsResult({ pages: 40 }), _meta: SERVER_META }),
      );
      expect(after).toEqual([]);
    });

    it('closing the stream is a cancellation: the run is aborted', async () => {
      const pending = post(host, modernCall(41), modernHeaders);
      const run = await world.nextRun();
      const reply = await pending;
      expect(await reply.next()).toBe(KEEP_ALIVE_COMMENT);
      reply.close();

      expect(await run.aborted).toEqual(expect.objectContaining({ name: 'AbortError' }));
    });
  });

  it('a batch (2025-03-26) keeps a JSON reply, whatever its calls report', async () => {
    const pending = postLive(
      host.url,
      host.path(world.codes.report),
      [callRequest(50, 'Report', 'tok-50'), callRequest(51, 'Report')],
      {},
    );
    const runs = [await world.nextRun(), await world.nextRun()];
    for (const run of runs) run.emit({ event: 'progress', progress: 1, total: 1 });
    await sleep(250); // heartbeats' worth of silence
    for (const run of runs) run.finish({ pages: 5 });

    const basic = { content: [{ type: 'text', text: '{"pages":5}' }], isError: false };
    await expectJsonReply(await pending, [response(50, basic), response(51, basic)]);
  });
});
