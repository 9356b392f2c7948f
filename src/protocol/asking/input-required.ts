import { randomBytes } from 'node:crypto';
import { McpError } from '../../errors/mcp-error.js';
import { type Asker, type AskingRun, InputRequired, type Question, type Round } from '../../tool/ask.js';
import type { ServerRecord } from '../../types/index.js';
import { isJsonObject } from '../../util/plain-object.js';
import { META_CLIENT_CAPABILITIES, metaOf } from '../era.js';
import type { RequestId } from '../messages.js';
import { declaresFormElicitation } from '../session-id.js';
import type { Signer } from '../signing.js';

/** The runs of this process that wait for a later `tools/call` with answers, by run id. */
export class ParkedRuns {
  readonly #byId = new Map<string, RoundsAsker>();

  park(asker: RoundsAsker): string {
    const id = randomBytes(16).toString('base64url');
    this.#byId.set(id, asker);
    return id;
  }

  get(id: string): RoundsAsker | undefined {
    return this.#byId.get(id);
  }

  remove(id: string): void {
    this.#byId.delete(id);
  }
}

/**
 * The task side of a run's asking (docs/tasks.md, "A task that asks"): once the call becomes a
 * task, its questions go to the task rather than to an `input_required` result.
 */
export interface TaskLink {
  /** The call is a task from now on: no more `input_required` results. */
  toTask(): void;
  /** The task's id, once it is stored. */
  bind(taskId: string): void;
}

/** What a 2026-07-28 `tools/call` tells the asker of its run. */
export interface RoundsCall {
  id: RequestId;
  params: Record<string, unknown>;
  server: ServerRecord;
  subject: string | undefined;
}

/**
 * Asks through the call's own reply (MCP 2026-07-28 "Multi round-trip requests", SEP-2322): the
 * run's questions end the request's reply with an `input_required` result, whose `requestState`
 * names the run, signed; the run waits in this process, and the client's next `tools/call` with
 * `inputResponses` and that state resumes it, its reply the rest of the run. Every such result
 * carries a fresh state. Answers a first call carries already (`inputResponses` without a state)
 * answer the questions of their key as they are asked.
 */
export class RoundsAsker implements Asker {
  readonly canAsk: boolean;
  /** Answers given before they were asked for, by key: taken once. */
  #given: Record<string, unknown> | undefined;
  #runId = '';
  /** Counts the `input_required` results: a state is good for the latest one only. */
  round = 0;
  #scheduled = false;
  /** The task side of the run's asking, when the call may become a task: a retry's task takes it over. */
  link: TaskLink | undefined = undefined;

  constructor(
    readonly run: AskingRun,
    readonly call: RoundsCall,
    readonly parked: ParkedRuns,
    readonly signer: Signer,
  ) {
    this.canAsk = declaresFormElicitation(metaOf({ params: call.params })?.[META_CLIENT_CAPABILITIES]);
    const given = call.params.inputResponses;
    if (isJsonObject(given)) this.#given = given;
  }

  /** The id its `requestState`s name; empty until the first pause. */
  get runId(): string {
    return this.#runId;
  }

  put(question: Question): void {
    const given = this.#given;
    if (given !== undefined && Object.hasOwn(given, question.key)) {
      const answer = given[question.key];
      delete given[question.key];
      if (question.answer({ result: answer }) === 'settled') return;
    }
    this.#schedule();
  }

  settled(): void {}

  closed(): void {
    if (this.#runId !== '') this.parked.remove(this.#runId);
  }

  /**
   * The reply ends at the end of the turn, once the app has asked what it asks at once (several
   * questions then share one `input_required` result), if questions still wait and the request
   * is still open.
   */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pause();
    });
  }

  #pause(): void {
    const { run } = this;
    if (run.over || run.questions.size === 0 || !run.replying) return;
    if (this.#runId === '') this.#runId = this.parked.park(this);
    this.round += 1;
    const inputRequests: Record<string, unknown> = {};
    let expires = 0;
    for (const question of run.questions) {
      Object.defineProperty(inputRequests, question.key, {
        value: { method: 'elicitation/create', params: question.params(true, true) },
        enumerable: true,
      });
      expires = Math.max(expires, question.deadline);
    }
    const state: Record<string, unknown> = {
      p: 'state',
      r: this.#runId,
      n: this.round,
      t: this.call.params.name,
      x: expires,
    };
    if (this.call.subject !== undefined) state.u = this.call.subject;
    const requestState = this.signer.sign(this.call.server, state);
    run.pause(new InputRequired({ resultType: 'input_required', inputRequests, requestState }));
  }

  /** A retry with answers: the run's reply from now on is this request's, and each answer goes to its question. */
  resume(round: Round, responses: Record<string, unknown>): Promise<unknown> {
    const reply = this.run.resume(round);
    for (const question of [...this.run.questions]) {
      if (!Object.hasOwn(responses, question.key)) continue;
      question.answer({ result: responses[question.key] });
    }
    // Questions still waiting (unanswered, or answered with what does not fit) are asked again.
    if (this.run.questions.size > 0) this.#schedule();
    return reply;
  }
}

/** A `requestState` this server signed, read back: which run, which round. */
export interface StateOfRun {
  runId: string;
  round: number;
}

/** -32602 for a retry whose `requestState` resumes no run, saying `why`. */
export const invalidRequestState = (why: string, id: RequestId): McpError =>
  new McpError('invalidParams', `Invalid params for tools/call: requestState ${why}`, undefined, id);

/** Why a good `requestState` resumes nothing: no instance holds its run any more. */
export const NO_WAITING_RUN = 'names no run waiting for input (it ended, timed out, or its instance stopped)';

/**
 * Reads a retry's `requestState`: signed by this server for this tool and caller, and not
 * expired; anything else is invalid params (MCP 2026-07-28: tampered state MUST be rejected),
 * never a resumption.
 */
export function readRequestState(signer: Signer, call: RoundsCall, now = Date.now()): StateOfRun {
  const invalid = (why: string) => invalidRequestState(why, call.id);
  const payload = signer.verify(call.server, call.params.requestState);
  if (
    payload === null ||
    payload.p !== 'state' ||
    typeof payload.r !== 'string' ||
    typeof payload.n !== 'number'
  )
    throw invalid('is not one this server issued');
  if (payload.t !== call.params.name || payload.u !== call.subject)
    throw invalid('belongs to another tool or caller');
  if (typeof payload.x !== 'number' || payload.x < now) throw invalid('has expired');
  const responses = call.params.inputResponses;
  if (responses !== undefined && responses !== null && !isJsonObject(responses))
    throw new McpError(
      'invalidParams',
      'Invalid params for tools/call: inputResponses must be an object',
      undefined,
      call.id,
    );
  return { runId: payload.r, round: payload.n };
}
