/**
 * The rules behind a streamed reply, without HTTP: the `heartbeatMs` option, which `Accept` values
 * let a reply stream, and the values heartbeats send (README, "Long runs").
 */
import { describe, expect, it } from 'vitest';
import { acceptsEventStream } from '../../src/endpoint/guards.js';
import { parseMcpServerOptions } from '../../src/endpoint/mcp-server-options.js';
import { ConfigurationError, type McpServerOptions, mcpServer } from '../../src/index.js';
import { ProgressNotes, progressTokenOf } from '../../src/protocol/stream/progress.js';

const required = (): McpServerOptions => ({
  resolveServer: async () => null,
  runApp: () => ({ answer: '' }),
});

const progressOf = (note: { params?: Record<string, unknown> } | null) => note?.params?.progress as number;

describe('the heartbeatMs option', () => {
  it('defaults to 10 seconds; 0 turns heartbeats off', () => {
    expect(parseMcpServerOptions(required()).heartbeatMs).toBe(10_000);
    expect(parseMcpServerOptions({ ...required(), heartbeatMs: 0 }).heartbeatMs).toBe(0);
  });

  it.each([[-1], [1.5], ['10s'], [2 ** 31]])('%j is a ConfigurationError naming heartbeatMs', (value) => {
    let error: unknown;
    try {
      mcpServer({ ...required(), heartbeatMs: value as number });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/^mcpServer: invalid option "heartbeatMs": .+/);
  });
});

describe('which Accept headers let a reply stream', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['application/json, text/event-stream', true],
    ['text/event-stream', true],
    ['*/*', true],
    ['text/*;q=0.5, application/json', true],
    ['application/json', false],
    ['application/json, text/event-stream;q=0', false],
    ['application/*', false],
  ])('%j: %s', (accept, streams) => {
    expect(acceptsEventStream(accept)).toBe(streams);
  });
});

describe('the progress token', () => {
  it.each([
    [{ _meta: { progressToken: 'abc' } }, 'abc'],
    [{ _meta: { progressToken: 0 } }, 0],
    [{ _meta: { progressToken: null } }, undefined],
    [{ _meta: { progressToken: { id: 1 } } }, undefined],
    [{ _meta: 'abc' }, undefined],
    [{}, undefined],
  ])('%j: %j', (params, token) => {
    expect(progressTokenOf(params)).toBe(token);
  });
});

describe('progress notes', () => {
  it("an app's value becomes a notification with the token, total and message", () => {
    const notes = new ProgressNotes('t', '2025-11-25');
    expect(notes.fromApp({ progress: 1, total: 4, message: 'one' })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1, total: 4, message: 'one' },
    });
  });

  it('a total or message that is not a number or a string is left out', () => {
    const notes = new ProgressNotes(9, '2025-11-25');
    expect(notes.fromApp({ progress: 1, total: '4', message: 42 })?.params).toEqual({
      progressToken: 9,
      progress: 1,
    });
    expect(notes.fromApp({ progress: 2, total: Number.POSITIVE_INFINITY })?.params).toEqual({
      progressToken: 9,
      progress: 2,
    });
  });

  it('a thousand heartbeats after value 3 stay strictly increasing and below 4', () => {
    const notes = new ProgressNotes('t', '2025-11-25');
    notes.fromApp({ progress: 3, total: 10, message: 'three' });
    const values = Array.from({ length: 1000 }, () => progressOf(notes.heartbeat()));

    expect(values.every((value, index) => value > (index === 0 ? 3 : values[index - 1]!) && value < 4)).toBe(
      true,
    );
    expect(values[0]! - 3).toBeLessThan(0.001); // the first moves a thousandth of a step: no jump
    expect(notes.heartbeat()?.params).toEqual(expect.objectContaining({ total: 10, message: 'three' }));
  });

  it("heartbeats stop short of the app's total when it is nearer than the next whole step", () => {
    const notes = new ProgressNotes('t', '2025-11-25');
    notes.fromApp({ progress: 9.5, total: 10 });
    const values = Array.from({ length: 100 }, () => progressOf(notes.heartbeat()));

    expect(values.every((value) => value > 9.5 && value < 10)).toBe(true);
  });

  it('after the heartbeats, an app value that they overtook is dropped; a higher one is sent', () => {
    const notes = new ProgressNotes('t', '2025-11-25');
    notes.fromApp({ progress: 0 });
    const beat = progressOf(notes.heartbeat());

    expect(notes.fromApp({ progress: beat / 2 })).toBeNull();
    expect(progressOf(notes.fromApp({ progress: 0.5 }))).toBe(0.5);
  });

  it('when no value is left below the next step, a heartbeat has no notification (a comment line goes instead)', () => {
    const notes = new ProgressNotes('t', '2025-11-25');
    notes.fromApp({ progress: 2 ** 53 }); // the next whole number is not even representable
    expect(notes.heartbeat()).toBeNull();
  });

  it('2024-11-05 notes carry no message', () => {
    const notes = new ProgressNotes('t', '2024-11-05');
    expect(notes.fromApp({ progress: 1, message: 'one' })?.params).toEqual({
      progressToken: 't',
      progress: 1,
    });
  });
});
