/**
 * `express-app-mcp/ai-sdk`: an app built with the AI SDK (`ai`) as a `runApp` (docs/adapters.md).
 * It needs nothing of `ai` at run time: it reads what `streamText` or an agent's `stream` returns.
 */
import type { ModelMessage } from 'ai';
import { ConfigurationError } from '../errors/package-errors.js';
import type { AppEvent, AppRun, RunApp } from '../types/index.js';
import { type ApprovalRequest, PartReader } from './ai-sdk-parts.js';
import { type AskAnswer, type AskRequest, asJson, askOf, untilAborted } from './shared.js';

/** What `fromAiSdk` passes your function besides the run. */
export interface AiSdkTurn {
  /**
   * The conversation to send the model: the question (`run.query`) as a user message, then, once
   * a person has answered the approvals of tool calls, the model's reply and the answers. Pass it
   * as `messages` so that an approved tool runs; a `prompt` of your own starts over instead.
   */
  messages: ModelMessage[];
}

/**
 * What `streamText(...)` returns and what an agent's `stream(...)` resolves to, as far as the
 * adapter reads it: the stream of parts (`stream` since AI SDK 7, `fullStream` before) and the
 * messages of the model's reply (`responseMessages` since AI SDK 7, `response.messages` before).
 */
export interface AiSdkStreamResult {
  readonly stream?: AsyncIterable<unknown>;
  readonly fullStream?: AsyncIterable<unknown>;
  readonly responseMessages?: PromiseLike<unknown[]>;
  readonly response?: PromiseLike<object>;
}

/** Starts one model call of a run: `(run, { messages }) => streamText({ model, messages, abortSignal: run.signal })`. */
export type AiSdkStart<HostRequest = unknown> = (
  run: AppRun<HostRequest>,
  turn: AiSdkTurn,
) => AiSdkStreamResult | PromiseLike<AiSdkStreamResult>;

/**
 * Tool approvals a run may go through before it is taken for a loop: a function that ignores
 * `turn.messages` meets the same approval again and again.
 */
const MAX_APPROVAL_ROUNDS = 10;

/**
 * A `runApp` for a `chat`, `advanced-chat`, `agent-chat` or `completion` app built with the AI SDK.
 * Text deltas stream as `message` events, reasoning and tool calls as `agent_thought`s, generated
 * files as `message_file`s, and the tokens used end the run as its `message_end`. A tool call that
 * needs approval asks the person behind the client (approve or reject) where the client can be
 * asked, and is rejected where it cannot; the model then goes on with the answer.
 * Pass `abortSignal: run.signal` to the model call: a cancelled call then stops the model too.
 */
export function fromAiSdk<HostRequest = unknown>(start: AiSdkStart<HostRequest>): RunApp<HostRequest> {
  if (typeof start !== 'function') {
    throw new ConfigurationError(
      'invalid_options',
      'fromAiSdk: its argument must be a function (run, { messages }) => streamText({ ... })',
    );
  }
  return (run) => answer(start, run);
}

async function* answer<HostRequest>(
  start: AiSdkStart<HostRequest>,
  run: AppRun<HostRequest>,
): AsyncGenerator<AppEvent> {
  if (run.app.mode === 'workflow') {
    throw new Error(`fromAiSdk runs chat and completion apps, and "${run.app.name}" is a workflow`);
  }
  const reader = new PartReader();
  let messages: ModelMessage[] = [{ role: 'user', content: run.query ?? '' }];
  for (let round = 1; ; round++) {
    const result = await start(run, { messages });
    const parts = result?.stream ?? result?.fullStream;
    if (parts === undefined) {
      throw new TypeError(
        'fromAiSdk: the function must return what streamText(...) or agent.stream(...) returns',
      );
    }
    try {
      for await (const part of untilAborted(parts, run.signal)) yield* reader.read(part);
    } catch (error) {
      // A stopped model call ends in its abort error: the run is over, and the package has answered.
      if (run.signal.aborted) return;
      throw error;
    }
    if (run.signal.aborted) return;
    yield* reader.flush();
    const pending = reader.approvals.splice(0);
    if (pending.length === 0) break;
    if (round === MAX_APPROVAL_ROUNDS) {
      throw new Error(
        `fromAiSdk: the model asked for tool approvals ${round} times in one run; does the function pass turn.messages to the model?`,
      );
    }
    const answers = await approvalsOf(pending, run);
    if (run.signal.aborted) return;
    messages = [
      ...messages,
      ...((await replyOf(result)) as ModelMessage[]),
      { role: 'tool', content: answers } as ModelMessage,
    ];
  }
  if (reader.usage) yield { event: 'message_end', metadata: { usage: reader.usage } };
}

/** The messages of the model's reply, to go on from where it asked for approval. */
async function replyOf(result: AiSdkStreamResult): Promise<unknown[]> {
  if (result.responseMessages) return await result.responseMessages;
  const response = (await result.response) as { messages?: unknown[] } | undefined;
  return response?.messages ?? [];
}

const DECISION = 'decision';
const APPROVE = 'approve';

/** The person's decision on each pending tool call, as the AI SDK takes it back (`tool-approval-response`). */
async function approvalsOf(pending: ApprovalRequest[], run: object): Promise<object[]> {
  const ask = askOf(run);
  const responses: object[] = [];
  for (const request of pending) {
    const answer = ask ? await ask(questionOf(request)) : undefined;
    const approved = answer?.action === 'accept' && answer.values[DECISION] === APPROVE;
    responses.push({
      type: 'tool-approval-response',
      approvalId: request.approvalId,
      approved,
      ...(!approved && { reason: whyNot(answer) }),
    });
  }
  return responses;
}

function questionOf(request: ApprovalRequest): AskRequest {
  const why = request.reason ? ` (${request.reason})` : '';
  return {
    message: `Approve the call of the tool ${request.toolName} with ${asJson(request.input)}?${why}`,
    fields: [
      {
        select: {
          variable: DECISION,
          label: 'Decision',
          options: [APPROVE, 'reject'],
          required: true,
        },
      },
    ],
  };
}

/** What the model reads when a tool call was not approved. */
function whyNot(answer: AskAnswer | undefined): string {
  if (answer === undefined) return 'no person could be asked to approve it';
  if (answer.action === 'accept') return 'the person rejected it';
  return answer.action === 'decline' ? 'the person declined to answer' : 'the person did not answer';
}
