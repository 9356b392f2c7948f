import { ConfigurationError, HumanInputUnavailable } from '../errors/package-errors.js';
import type { AskAnswer, AskOptions } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import { type AskFieldSpec, checkAnswer, parseAskFields, requestedSchema } from './ask-fields.js';
import type { RunObserver } from './observer.js';

/** `humanInputTimeoutMs`'s default: how long `run.ask` waits for a person, in ms. */
export const DEFAULT_HUMAN_INPUT_TIMEOUT_MS = 600_000;
/** `maxWaitingRuns`' default: how many runs of one instance may wait for a person at once. */
export const DEFAULT_MAX_WAITING_RUNS = 10_000;

/**
 * How a run's questions reach a person on one call, and their answers come back: an elicitation
 * request on the call's stream (MCP 2025-06-18, 2025-11-25), an `input_required` result
 * (MCP 2026-07-28), or a task's status. Made on the run's first `canAsk` or `ask`.
 */
export interface Asker {
  /** Whether a question can reach a person on this call. */
  readonly canAsk: boolean;
  /** Puts `question` to the person, or again when its answer did not fit; the answer comes back through `question.answer`. */
  put(question: Question): void;
  /** `question` is settled, however: nothing waits for its answer any more. */
  settled(question: Question): void;
  /** The run has ended or stopped: nothing it asked will be answered. */
  closed(): void;
}

/**
 * Makes the asker of a call's run, on first use: one object per era, shared by every call, so
 * that a call that never asks allocates nothing for asking.
 */
export interface AskChannel<Call> {
  askerFor(call: Call, run: AskingRun): Asker;
}

/** What an asker may do to its run. */
export interface AskingRun extends RunRounds {
  /** The run's questions still waiting for an answer, in the order they were asked. */
  readonly questions: ReadonlySet<Question>;
  /** The run has stopped or ended: no question it asks will be answered. */
  readonly over: boolean;
}

/**
 * A reply of a call that ends while its run goes on, waiting for answers (MCP 2026-07-28
 * `input_required`): what the call's promise resolves with instead of the tool result.
 */
export class InputRequired {
  constructor(readonly result: Record<string, unknown>) {}
}

/** A later request that carries answers to a paused run (MCP 2026-07-28: the retry of a `tools/call`). */
export interface Round {
  /** The JSON-RPC id of that request, by which a cancellation names it. */
  id: string | number;
  /** See `ToolRun.onClosed`. */
  onClosed: (listener: () => void) => () => void;
  /** Follows the run for that request's reply, when it may stream. */
  observer?: RunObserver;
  /** That request, as the framework gave it: the run's `request` from then on; absent when it reached another instance. */
  request?: unknown;
  /** The key the run is stopped by from now on (a task's); absent: `id`. */
  runKey?: string;
}

/** How a run's reply is split into rounds, each a request of the client's (MCP 2026-07-28). */
export interface RunRounds {
  /** Ends the current request's reply with `pause` while the run goes on; `false` when no request is open. */
  pause(pause: InputRequired): boolean;
  /** Whether a request is open, whose reply a `pause` would end. */
  readonly replying: boolean;
  /** Opens the next round: its promise settles with the run's next pause or its result. */
  resume(round: Round): Promise<unknown>;
}

/** A client's reply to a question: its result (`ElicitResult`), or `error` when it answered a JSON-RPC error. */
export type ClientAnswer = { result: unknown } | { error: unknown };

/**
 * One question a run put to a person, until it is answered, declined, cancelled, timed out, or the
 * run stops: what an asker (the call's stream, a 2026 `input_required` round, a task) carries to
 * the client and back. Its answer is checked against its fields: one that does not fit is asked
 * again once, then the question resolves `cancel`.
 */
export class Question {
  readonly promise: Promise<AskAnswer>;
  #resolve!: (answer: AskAnswer) => void;
  #reject!: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #retried = false;
  #settled = false;
  /** When the question stops waiting, in epoch ms. */
  readonly deadline: number;

  constructor(
    readonly key: string,
    readonly message: string,
    readonly fields: readonly AskFieldSpec[],
    timeoutMs: number,
    readonly owner: HumanInput,
  ) {
    this.promise = new Promise<AskAnswer>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.deadline = Date.now() + timeoutMs;
    this.#timer = setTimeout(() => this.#settle({ action: 'cancel', reason: 'timeout' }), timeoutMs);
    this.#timer.unref();
  }

  /** The elicitation `params` (mode form): the message and the fields' schema (`titled`: see `requestedSchema`). */
  params(titled: boolean, mode: boolean): Record<string, unknown> {
    const params: Record<string, unknown> = mode ? { mode: 'form' } : {};
    params.message = this.message;
    params.requestedSchema = requestedSchema(this.fields, titled);
    return params;
  }

  /**
   * The client's answer. `settled`: the question is answered (an accepted answer that fits,
   * `decline`, `cancel`, or a second one that does not fit: `cancel`); `again`: the answer did not
   * fit, and the asker must put the question once more.
   */
  answer(reply: ClientAnswer): 'settled' | 'again' {
    if (this.#settled) return 'settled';
    // A client that failed to show the form (a JSON-RPC error) leaves the person unasked.
    if ('error' in reply) return this.#settle({ action: 'cancel' });
    const result = reply.result;
    const action = isJsonObject(result) ? result.action : undefined;
    if (action === 'decline' || action === 'cancel') return this.#settle({ action });
    if (action === 'accept') {
      const checked = checkAnswer(this.fields, (result as Record<string, unknown>).content);
      if (checked.ok) return this.#settle({ action: 'accept', values: checked.values });
    }
    if (this.#retried) return this.#settle({ action: 'cancel', reason: 'invalid_answer' });
    this.#retried = true;
    return 'again';
  }

  /** The run stopped (cancelled, timed out): the app's `ask` rejects with the reason. */
  fail(reason: unknown): void {
    if (this.#end()) this.#reject(reason);
  }

  /** The question is never asked (the run may not wait): its timer goes, and nobody hears of it. */
  drop(): void {
    this.#settled = true;
    clearTimeout(this.#timer);
  }

  #settle(answer: AskAnswer): 'settled' {
    if (this.#end()) this.#resolve(answer);
    return 'settled';
  }

  #end(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.owner.settled(this);
    return true;
  }
}

/**
 * A run's side of asking: its asker, made on first use, and its questions still waiting. What
 * `run.ask` and `run.canAsk` read; one per run that asks, none for a run that never does.
 */
export class HumanInput implements AskingRun {
  readonly questions = new Set<Question>();
  #count = 0;
  #over = false;
  readonly asker: Asker | undefined;

  constructor(
    readonly run: RunRounds & { waiting(waiting: boolean): void },
    makeAsker: (run: AskingRun) => Asker | undefined,
    readonly timeoutMs: number,
  ) {
    this.asker = makeAsker(this);
  }

  pause(pause: InputRequired): boolean {
    return this.run.pause(pause);
  }

  get replying(): boolean {
    return this.run.replying;
  }

  resume(round: Round): Promise<unknown> {
    return this.run.resume(round);
  }

  get over(): boolean {
    return this.#over;
  }

  get canAsk(): boolean {
    return this.asker?.canAsk === true;
  }

  ask(options: AskOptions): Promise<AskAnswer> {
    const asker = this.asker;
    if (this.#over) return Promise.reject(new HumanInputUnavailable());
    if (!asker?.canAsk) return Promise.reject(new HumanInputUnavailable());
    let question: Question;
    try {
      question = this.#question(options);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.questions.size === 0) {
      // The run starts waiting: past `maxWaitingRuns` it is refused, before anything is asked.
      try {
        this.run.waiting(true);
      } catch (error) {
        question.drop();
        return Promise.reject(error);
      }
    }
    this.questions.add(question);
    asker.put(question);
    return question.promise;
  }

  #question(options: AskOptions): Question {
    if (!isJsonObject(options))
      throw new ConfigurationError('invalid_fields', 'run.ask: options must be an object');
    const { message, fields, timeoutMs, key } = options;
    if (typeof message !== 'string' || message === '')
      throw new ConfigurationError('invalid_fields', 'run.ask: message must be a non-empty string');
    const timeout = timeoutMs ?? this.timeoutMs;
    if (!Number.isInteger(timeout) || timeout <= 0 || timeout > 2_147_483_647)
      throw new ConfigurationError('invalid_fields', 'run.ask: timeoutMs must be a positive integer of ms');
    this.#count += 1;
    const name = key ?? `question-${this.#count}`;
    if (typeof name !== 'string' || name === '')
      throw new ConfigurationError('invalid_fields', 'run.ask: key must be a non-empty string');
    for (const waiting of this.questions) {
      if (waiting.key === name)
        throw new ConfigurationError('invalid_fields', `run.ask: the question ${name} is already waiting`);
    }
    return new Question(name, message, parseAskFields(fields), timeout, this);
  }

  /** Called by a question once it is settled. */
  settled(question: Question): void {
    if (!this.questions.delete(question)) return;
    this.asker?.settled(question);
    if (this.questions.size === 0) this.run.waiting(false);
  }

  /** The run stopped: every waiting question rejects with `reason`, and no new one is asked. */
  stop(reason: unknown): void {
    this.#over = true;
    for (const question of [...this.questions]) question.fail(reason);
    this.asker?.closed();
  }

  /** The run ended on its own: questions it left waiting are answered `cancel`, for nobody. */
  end(): void {
    this.#over = true;
    for (const question of [...this.questions]) question.answer({ error: null });
    this.asker?.closed();
  }
}
