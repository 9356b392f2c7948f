/**
 * Results and their size (docs/http-contract.md, "The tool"): a result larger than
 * `maxResultBytes` once serialized is an error result that says so, reported to `onError`; an
 * answer that grows past it as it streams ends the run there; a result that cannot be serialized
 * is an error result too. The tool layer is called directly, with a real `runApp` per case.
 */
import { describe, expect, it } from 'vitest';
import { measureResult } from '../../src/tool/result-size.js';
import type { AppEvent, AppRun } from '../../src/types/index.js';
import { appOf, call, failure, stream, success, workflow } from '../helpers/tool-call.js';

const chat = appOf('chat');
const agent = appOf('agent-chat');
const LIMIT = 1000;
const tooLarge = (bytes?: number) =>
  failure(
    `the result is too large: ${bytes === undefined ? '' : `${bytes} bytes, `}more than the ${LIMIT} bytes one result may carry (maxResultBytes)`,
  );
const messages = (...answers: string[]) => answers.map((answer): AppEvent => ({ event: 'message', answer }));

describe('maxResultBytes', () => {
  it('an answer within the limit is sent as it is', async () => {
    const { result, reports } = await call(chat, () => ({ answer: 'x'.repeat(400) }), {
      maxResultBytes: LIMIT,
    });
    expect(result).toEqual(success('x'.repeat(400), { answer: 'x'.repeat(400) }));
    expect(reports).toEqual([]);
  });

  it('an answer that fits once but not twice (text and structuredContent) is too large, with its size', async () => {
    // Between the bounds (2 × 480 characters at least, six bytes each at most): measured, so the size is told.
    const { result, reports, phases } = await call(chat, () => ({ answer: 'x'.repeat(480) }), {
      maxResultBytes: LIMIT,
    });
    const bytes = JSON.stringify(success('x'.repeat(480), { answer: 'x'.repeat(480) })).length;
    expect(result).toEqual(tooLarge(bytes));
    const text = `the result is too large: ${bytes} bytes, more than the ${LIMIT} bytes one result may carry (maxResultBytes)`;
    expect(reports.map((error) => (error as Error).message)).toEqual([text]);
    expect(phases).toEqual(['outputs']);
  });

  it('control characters count as JSON writes them: six bytes each', async () => {
    const { result } = await call(chat, () => ({ answer: '\u0001'.repeat(100) }), { maxResultBytes: LIMIT });
    expect(result).toEqual(
      tooLarge(JSON.stringify(success('\u0001'.repeat(100), { answer: '\u0001'.repeat(100) })).length),
    );
  });

  it('a message answer that grows past the limit ends the run there: later events are never taken', async () => {
    let taken = 0;
    let aborted = false;
    const { result, reports } = await call(
      chat,
      async function* (run: AppRun) {
        run.signal.addEventListener('abort', () => {
          aborted = true;
        });
        for (let i = 0; i < 100; i++) {
          taken++;
          yield { event: 'message', answer: 'y'.repeat(300) };
        }
      },
      { maxResultBytes: LIMIT },
    );
    expect(result).toEqual(tooLarge());
    expect(reports).toHaveLength(1);
    expect(taken).toBe(4);
    expect(aborted).toBe(true);
  });

  it('thoughts past the limit are not kept while a message answer is what the client gets', async () => {
    const { result } = await call(
      agent,
      () =>
        stream(
          ...Array.from(
            { length: 10 },
            (): AppEvent => ({ event: 'agent_thought', thought: 'z'.repeat(300) }),
          ),
          ...messages('the answer'),
        ),
      { maxResultBytes: LIMIT },
    );
    expect(result).toEqual(success('the answer', { answer: 'the answer' }));
  });

  it('thoughts past the limit are too large when they are the answer', async () => {
    const { result } = await call(
      agent,
      () =>
        stream(
          ...Array.from(
            { length: 10 },
            (): AppEvent => ({ event: 'agent_thought', thought: 'z'.repeat(300) }),
          ),
        ),
      { maxResultBytes: LIMIT },
    );
    expect(result).toEqual(tooLarge());
  });

  it('workflow outputs past the limit are too large before their text is made', async () => {
    const { result, phases } = await call(workflow, () => ({ outputs: { text: 'w'.repeat(5000) } }), {
      maxResultBytes: LIMIT,
    });
    expect(result).toEqual(tooLarge());
    expect(phases).toEqual(['outputs']);
  });

  it('a usage that cannot be serialized (a BigInt) fails the run, as such outputs do; the cause to onError', async () => {
    const { result, reports, phases } = await call(chat, () =>
      stream(...messages('hi'), { event: 'message_end', metadata: { usage: { tokens: 10n } } } as AppEvent),
    );
    expect(result).toEqual(failure('the app failed to run'));
    expect(reports).toEqual([expect.any(TypeError)]);
    expect(phases).toEqual(['run']);
  });

  it('outputs that cannot be serialized (a cycle) fail the run the same way', async () => {
    const outputs: Record<string, unknown> = { name: 'loop' };
    outputs.self = outputs;
    const { result, reports, phases } = await call(workflow, () => ({ outputs }));
    expect(result).toEqual(failure('the app failed to run'));
    expect(reports).toEqual([expect.any(TypeError)]);
    expect(phases).toEqual(['run']);
  });

  it('the default limit is 16 MiB', async () => {
    const answer = 'a'.repeat(9 * 1024 * 1024);
    const { result } = await call(chat, () => ({ answer }));
    expect(result).toEqual(
      failure('the result is too large: more than the 16777216 bytes one result may carry (maxResultBytes)'),
    );
  });
});

describe('measureResult', () => {
  it.each([
    [
      'a small result, settled by its bounds',
      { content: [{ type: 'text', text: 'hi' }], isError: false },
      100,
    ],
    ['numbers, booleans, nulls and nested lists', { a: [1, -2.5, true, null, [false, { b: 'c' }]] }, 200],
    ['a Date, which serializes through toJSON', { at: new Date(0) }, 100],
    ['non-ASCII text, counted in UTF-8 bytes', { text: 'é'.repeat(40) }, 100],
  ])('%s: fits exactly when its JSON fits', (_case, value, limit) => {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    expect(measureResult(value, bytes)).toEqual({ fits: true });
    expect(measureResult(value, bytes - 1)).toEqual({ fits: false, ...(bytes - 1 < limit ? { bytes } : {}) });
  });

  it('a cycle cannot be serialized: it says so rather than overflowing the stack', () => {
    const value: Record<string, unknown> = {};
    value.self = value;
    const size = measureResult(value, 1000);
    expect(size).toEqual({ fits: false, unserializable: expect.any(TypeError) });
  });
});
