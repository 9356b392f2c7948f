/**
 * The default `onError` under a flood of failures (README "Errors and logs"): a failure that
 * repeats is written in full once, then counted and summed up once per interval (10 s), so a
 * database outage does not print a stack trace per request.
 */
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import * as pkg from '../../src/index.js';
import { DEFAULT_LOG_INTERVAL_MS, ThrottledLog } from '../../src/util/throttled-log.js';
import { type Host, hostVariants, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcError } from '../helpers/rpc.js';

const OUTAGE = new Error('connect ECONNREFUSED 127.0.0.1:5432');

describe('the default onError during a database outage', () => {
  let host: Host;
  let consoleError: MockInstance<typeof console.error>;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    host = await startHost(hostVariants[0] as (typeof hostVariants)[0], pkg, {
      resolveServer: async () => {
        throw OUTAGE;
      },
      runApp: () => ({ outputs: {} }),
    });
  });
  afterEach(async () => {
    await host.close();
    consoleError.mockRestore();
    vi.useRealTimers();
  });

  const fail = async (times: number) => {
    for (let i = 0; i < times; i++) {
      expectRpcReply(
        await host.post('AnyCode000000000', request(i, 'ping')),
        500,
        rpcError(i, -32603, 'Internal error'),
      );
    }
  };

  it('writes the first failure in full and counts the rest, once per interval', async () => {
    await fail(40);
    expect(consoleError.mock.calls).toEqual([['express-app-mcp: internal failure during resolve', OUTAGE]]);

    vi.advanceTimersByTime(DEFAULT_LOG_INTERVAL_MS);
    expect(consoleError.mock.calls.slice(1)).toEqual([
      [
        `express-app-mcp: internal failure during resolve: 39 more in the last 10 s (${OUTAGE.name}: ${OUTAGE.message})`,
      ],
    ]);

    await fail(5);
    vi.advanceTimersByTime(DEFAULT_LOG_INTERVAL_MS);
    expect(consoleError.mock.calls.slice(2)).toEqual([
      [
        `express-app-mcp: internal failure during resolve: 5 more in the last 10 s (${OUTAGE.name}: ${OUTAGE.message})`,
      ],
    ]);
  });

  it('after a quiet interval, the next failure is written in full again', async () => {
    await fail(1);
    vi.advanceTimersByTime(DEFAULT_LOG_INTERVAL_MS);
    await fail(1);
    expect(consoleError.mock.calls).toEqual([
      ['express-app-mcp: internal failure during resolve', OUTAGE],
      ['express-app-mcp: internal failure during resolve', OUTAGE],
    ]);
  });
});

describe('ThrottledLog', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('tells failures apart by label and by error, each counted on its own', () => {
    const write = vi.fn();
    const log = new ThrottledLog(write, 1000);
    const a = new TypeError('a');
    const b = new Error('b');
    for (let i = 0; i < 3; i++) {
      log.log('during resolve', a);
      log.log('during resolve', b);
      log.log('during run', a);
    }
    expect(write.mock.calls).toEqual([
      ['during resolve', a],
      ['during resolve', b],
      ['during run', a],
    ]);
    vi.advanceTimersByTime(1000);
    expect(write.mock.calls.slice(3)).toEqual([
      ['during resolve: 2 more in the last 1 s (TypeError: a)'],
      ['during resolve: 2 more in the last 1 s (Error: b)'],
      ['during run: 2 more in the last 1 s (TypeError: a)'],
    ]);
  });

  it('keeps at most 100 kinds apart and counts the others together', () => {
    const write = vi.fn();
    const log = new ThrottledLog(write, 1000);
    for (let i = 0; i < 150; i++) log.log('during run', new Error(`failure ${i}`));
    expect(write).toHaveBeenCalledTimes(101);
    vi.advanceTimersByTime(1000);
    expect(write.mock.calls.slice(101)).toEqual([
      ['express-app-mcp: internal failures: 49 more in the last 1 s (of other kinds)'],
    ]);
  });

  it('describes what is not an Error, and what cannot be described', () => {
    const write = vi.fn();
    const log = new ThrottledLog(write, 1000);
    const weird = {
      toString() {
        throw new Error('no');
      },
    };
    log.log('x', 'plain text');
    log.log('x', 'plain text');
    log.log('x', weird);
    log.log('x', weird);
    vi.advanceTimersByTime(1000);
    expect(write.mock.calls.slice(2)).toEqual([
      ['x: 1 more in the last 1 s (plain text)'],
      ['x: 1 more in the last 1 s (an error that cannot be described)'],
    ]);
  });
});
