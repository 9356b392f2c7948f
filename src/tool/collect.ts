import type { AppEvent, AppMode, AppResult } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import { conversationIdOf } from './conversation.js';
import { producesOutputs } from './modes.js';
import type { RunObserver } from './observer.js';
import type { RunStop } from './stop.js';

/** What a run produced, before it is shaped into a `tools/call` result. */
export type Produced =
  | { kind: 'outputs'; outputs: Record<string, unknown>; usage?: Record<string, unknown> }
  | {
      kind: 'answer';
      answer: string;
      files: unknown[];
      conversationId?: string;
      usage?: Record<string, unknown>;
    }
  | { kind: 'error'; message: string }
  /** The answer grew past `maxResultBytes` while it came: the run is ended there. */
  | { kind: 'tooLarge' };

export const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** A plain `{outputs}` or `{answer}` return (any mode may return a plain result). */
export function fromPlainResult(mode: AppMode, result: AppResult | null | undefined): Produced {
  const record = (result ?? {}) as Record<string, unknown>;
  if (producesOutputs(mode)) return { kind: 'outputs', outputs: asOutputs(record.outputs) };
  const files = Array.isArray(record.files) ? record.files : [];
  const answer = typeof record.answer === 'string' ? record.answer : '';
  return { kind: 'answer', answer, files, conversationId: conversationIdOf(record) };
}

/**
 * Folds an event stream into a result (README, "runApp, mode by mode"). The answer is the `message` answers (a
 * `message_replace` replaces what came before); without any, the `agent_message` answers; without
 * those, the `agent_thought` thoughts. `message_file` events add files; the last `message_end`
 * that names a usage gives it. An `error` event ends the run. Unknown events are ignored. The next
 * event is taken only once the observer is ready for it (backpressure from a streamed reply).
 *
 * An answer longer than `maxChars` cannot fit a result of that many bytes (each character takes
 * one byte or more): a `message` answer that grows past it ends the run at once (`tooLarge`);
 * `agent_message` answers and thoughts past it are no longer kept, and are `tooLarge` if they
 * turn out to be the answer. Text that can no longer be the answer is not kept either.
 */
export async function fromEvents(
  mode: AppMode,
  events: AsyncIterable<AppEvent>,
  stop: Pick<RunStop, 'stopped'>,
  observer?: RunObserver,
  maxChars = Number.POSITIVE_INFINITY,
): Promise<Produced> {
  let outputs: Record<string, unknown> = {};
  let message: string | null = null;
  let agentMessage: string | null = null;
  let thoughts = '';
  /** Which of `agentMessage` and `thoughts` grew past `maxChars`, and are dropped. */
  let agentOver = false;
  let thoughtsOver = false;
  // A workflow's result is its outputs: the text it streams is never its answer, and is not kept.
  const answers = !producesOutputs(mode);
  const files: unknown[] = [];
  let conversationId: string | undefined;
  let usage: Record<string, unknown> | undefined;
  for await (const event of events) {
    if (stop.stopped) break;
    // Dify names the conversation on most chat events; the last one named wins.
    conversationId = conversationIdOf(event) ?? conversationId;
    switch (event?.event) {
      case 'message':
        if (!answers) break;
        message = (message ?? '') + text(event.answer);
        if (message.length > maxChars) return { kind: 'tooLarge' };
        break;
      case 'message_replace':
        if (!answers) break;
        message = text(event.answer);
        if (message.length > maxChars) return { kind: 'tooLarge' };
        break;
      case 'agent_message':
        // Once there is a `message` answer, nothing else can be the answer.
        if (!answers || message !== null || agentOver) break;
        agentMessage = (agentMessage ?? '') + text(event.answer);
        if (agentMessage.length > maxChars) {
          agentOver = true;
          agentMessage = '';
        }
        break;
      case 'agent_thought':
        if (!answers || message !== null || agentMessage !== null || thoughtsOver) break;
        thoughts += text(event.thought);
        if (thoughts.length > maxChars) {
          thoughtsOver = true;
          thoughts = '';
        }
        break;
      case 'workflow_finished':
        outputs = asOutputs(event.outputs);
        break;
      case 'message_file':
        // Without a `file` it is no file event, and is ignored like unknown events.
        if (event.file !== undefined) files.push(event.file);
        break;
      case 'progress':
        observer?.progress(event);
        break;
      case 'message_end':
        if (isJsonObject(event.metadata) && isJsonObject(event.metadata.usage)) usage = event.metadata.usage;
        break;
      case 'error':
        return { kind: 'error', message: text(event.message) || 'the app reported an error' };
    }
    // The app's `yield` waits while its reply cannot take more.
    const waiting = observer?.ready?.();
    if (waiting) await waiting;
  }
  if (answers && message === null && (agentMessage === null ? thoughtsOver : agentOver))
    return { kind: 'tooLarge' };
  const produced: Produced = !answers
    ? { kind: 'outputs', outputs }
    : { kind: 'answer', answer: message ?? agentMessage ?? thoughts, files, conversationId };
  if (usage !== undefined) produced.usage = usage;
  return produced;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `null` or missing outputs are an empty object. */
function asOutputs(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}
