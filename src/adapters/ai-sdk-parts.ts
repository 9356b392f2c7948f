/**
 * The AI SDK's stream parts (`streamText(...).stream`, `fullStream` before AI SDK 7) as the events
 * of a chat run (README, "runApp, mode by mode"; docs/adapters.md).
 */
import type { AppEvent } from '../types/index.js';
import { asJson } from './shared.js';

/** A tool call the model made that waits for a person's approval (`needsApproval`, `toolApproval`). */
export interface ApprovalRequest {
  approvalId: string;
  toolName: string;
  input: unknown;
  /** Why the call needs approval, when the tool's approval rule gave a reason. */
  reason?: string;
}

/** The token counts of the model calls of one run, added up; absent counts stay absent. */
export type Usage = Partial<
  Record<'inputTokens' | 'outputTokens' | 'totalTokens' | 'reasoningTokens' | 'cachedInputTokens', number>
>;

type Part = { type?: unknown } & Record<string, unknown>;

/**
 * Reads the parts of the model calls of one run: text deltas become `message` events; reasoning
 * (one thought per reasoning block), tool calls, results, failures and denials become
 * `agent_thought` events; generated files `message_file` events. Approval requests and usage are
 * kept for the end of each call. An `error` part is thrown; an `abort` part ends nothing by itself
 * (the run's signal has the last word).
 */
export class PartReader {
  readonly approvals: ApprovalRequest[] = [];
  usage: Usage | undefined;
  #thoughts = 0;
  readonly #reasoning = new Map<string, string>();

  *read(value: unknown): Generator<AppEvent> {
    if (typeof value !== 'object' || value === null) return;
    const part = value as Part;
    switch (part.type) {
      case 'text-delta': {
        // `text` since AI SDK 5; `delta` is what a language model's own stream calls it.
        const text = typeof part.text === 'string' ? part.text : part.delta;
        if (typeof text === 'string' && text !== '') yield { event: 'message', answer: text };
        return;
      }
      case 'reasoning-delta': {
        const id = String(part.id ?? '');
        const text = typeof part.text === 'string' ? part.text : '';
        this.#reasoning.set(id, (this.#reasoning.get(id) ?? '') + text);
        return;
      }
      case 'reasoning-end':
        yield* this.#reasoned(String(part.id ?? ''));
        return;
      case 'tool-call':
        yield this.#thought(`calling the tool ${toolNameOf(part)} with ${asJson(part.input)}`);
        return;
      case 'tool-result':
        // A preliminary result is followed by the final one.
        if (part.preliminary === true) return;
        yield this.#thought(`the tool ${toolNameOf(part)} returned ${asJson(part.output)}`);
        return;
      case 'tool-error':
        // The error's text is the host's own business (it may name internals): the model has it.
        yield this.#thought(`the tool ${toolNameOf(part)} failed`);
        return;
      case 'tool-output-denied':
        yield this.#thought(`the tool ${toolNameOf(part)} was not run: it was not approved`);
        return;
      case 'tool-approval-request':
        this.#approvalRequested(part);
        return;
      case 'file': {
        const file = part.file as { base64?: unknown; mediaType?: unknown } | undefined;
        if (typeof file?.base64 !== 'string') return;
        yield {
          event: 'message_file',
          file: {
            data: file.base64,
            ...(typeof file.mediaType === 'string' && { mimeType: file.mediaType }),
          },
        };
        return;
      }
      case 'finish':
        this.#used(part.totalUsage);
        return;
      case 'error':
        throw part.error instanceof Error
          ? part.error
          : new Error(`the model call failed: ${asJson(part.error)}`);
    }
  }

  /** The reasoning blocks that never saw their end, once a call's stream is over. */
  *flush(): Generator<AppEvent> {
    for (const id of [...this.#reasoning.keys()]) yield* this.#reasoned(id);
  }

  *#reasoned(id: string): Generator<AppEvent> {
    const text = this.#reasoning.get(id);
    this.#reasoning.delete(id);
    if (text) yield this.#thought(text);
  }

  /** Thoughts are concatenated when they stand in for the answer: one per line. */
  #thought(text: string): AppEvent {
    const thought = this.#thoughts++ === 0 ? text : `\n${text}`;
    return { event: 'agent_thought', thought };
  }

  #approvalRequested(part: Part): void {
    // An automatic decision (`toolApproval: 'approved' | 'denied'`) needs nobody.
    if (part.isAutomatic === true || typeof part.approvalId !== 'string') return;
    const call = (part.toolCall ?? {}) as Part;
    const request: ApprovalRequest = {
      approvalId: part.approvalId,
      toolName: toolNameOf(call),
      input: call.input,
    };
    if (typeof part.reason === 'string' && part.reason !== '') request.reason = part.reason;
    this.approvals.push(request);
  }

  #used(usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) return;
    const counts = usage as Record<string, unknown> & {
      inputTokenDetails?: { cacheReadTokens?: unknown };
      outputTokenDetails?: { reasoningTokens?: unknown };
    };
    // A count is a number of tokens: one that is negative, not finite or not a number is none. The
    // sums stop at the largest integer a number holds exactly, so they stay finite (JSON has no Infinity).
    const add = (key: keyof Usage, count: unknown) => {
      if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) return;
      this.usage ??= {};
      this.usage[key] = Math.min((this.usage[key] ?? 0) + count, Number.MAX_SAFE_INTEGER);
    };
    add('inputTokens', counts.inputTokens);
    add('outputTokens', counts.outputTokens);
    add('totalTokens', counts.totalTokens);
    // The details' own names since AI SDK 6; the older names at the top, which AI SDK 7 dropped.
    add('reasoningTokens', counts.outputTokenDetails?.reasoningTokens ?? counts.reasoningTokens);
    add('cachedInputTokens', counts.inputTokenDetails?.cacheReadTokens ?? counts.cachedInputTokens);
  }
}

const toolNameOf = (part: Part): string => (typeof part.toolName === 'string' ? part.toolName : 'tool');
