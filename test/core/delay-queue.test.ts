/**
 * The queue behind call timeouts and heartbeats: every entry falls due a fixed delay after it was
 * added or refreshed, in time, with one timer for the whole queue that keeps the process alive only
 * while something is queued. Run on a fake clock, so that "in time" is exact.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DelayQueue } from '../../src/util/delay-queue.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A queue of names that records when each fell due, in ms of the fake clock. */
function recordingQueue(delayMs: number, onDue?: (name: string) => void) {
  const due: [string, number][] = [];
  const queue = new DelayQueue<string>(delayMs, (name) => {
    due.push([name, performance.now()]);
    onDue?.(name);
  });
  return { queue, due };
}

describe('DelayQueue', () => {
  it('hands each entry over delayMs after it was added, in order, and not before', () => {
    const { queue, due } = recordingQueue(100);
    queue.add('a');
    vi.advanceTimersByTime(30);
    queue.add('b');
    vi.advanceTimersByTime(69);
    expect(due).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(due).toEqual([['a', 100]]);
    vi.advanceTimersByTime(30);
    expect(due).toEqual([
      ['a', 100],
      ['b', 130],
    ]);
  });

  it('a refreshed entry falls due delayMs after the refresh; a removed one never', () => {
    const { queue, due } = recordingQueue(100);
    const a = queue.add('a');
    const b = queue.add('b');
    queue.add('c');
    vi.advanceTimersByTime(50);
    queue.refresh(a);
    queue.remove(b);
    vi.advanceTimersByTime(200);
    expect(due).toEqual([
      ['c', 100],
      ['a', 150],
    ]);
  });

  it('entries refreshed as they fall due (heartbeats) keep their pace, and so do the others', () => {
    const entries = new Map<string, ReturnType<DelayQueue<string>['add']>>();
    const { queue, due } = recordingQueue(100, (name) => {
      const entry = entries.get(name);
      if (entry) queue.refresh(entry);
    });
    for (const [name, at] of [
      ['a', 0],
      ['b', 10],
      ['c', 20],
    ] as const) {
      vi.advanceTimersByTime(at - performance.now());
      entries.set(name, queue.add(name));
    }
    vi.advanceTimersByTime(300 - performance.now());
    expect(due).toEqual([
      ['a', 100],
      ['b', 110],
      ['c', 120],
      ['a', 200],
      ['b', 210],
      ['c', 220],
      ['a', 300],
    ]);
  });

  it('holds one timer while anything is queued; emptied, it keeps it for the next entry without keeping the process alive', () => {
    const armed = vi.spyOn(globalThis, 'setTimeout');
    const { queue, due } = recordingQueue(1000);
    const entries = ['a', 'b', 'c'].map((name) => queue.add(name));
    expect(vi.getTimerCount()).toBe(1);
    const timer = armed.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(true);

    for (const entry of entries) queue.remove(entry);
    expect(timer.hasRef()).toBe(false);

    vi.advanceTimersByTime(500);
    queue.add('d');
    expect(armed).toHaveBeenCalledTimes(1);
    expect(timer.hasRef()).toBe(true);
    // The timer left from 'a' fires first and finds nothing due; the next one is armed for 'd'.
    vi.advanceTimersByTime(500);
    expect(due).toEqual([]);
    expect(armed).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(500);
    expect(due).toEqual([['d', 1500]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an entry that throws when due does not stop the others', () => {
    const { queue, due } = recordingQueue(100, (name) => {
      if (name === 'a') throw new Error('a failed');
    });
    queue.add('a');
    vi.advanceTimersByTime(10);
    queue.add('b');
    expect(() => vi.advanceTimersByTime(90)).toThrow('a failed');
    vi.advanceTimersByTime(10);
    expect(due).toEqual([
      ['a', 100],
      ['b', 110],
    ]);
  });
});
