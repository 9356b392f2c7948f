import type { Asker, AskingRun, ClientAnswer, Question, Round } from '../../tool/ask.js';
import type { TakesAnswers } from '../asking/elicitation.js';
import { RoundsAsker, type RoundsCall, type TaskLink } from '../asking/input-required.js';
import type { AskingParts } from '../tool-call.js';
import type { AnsweringTask, TaskInputs } from './inputs.js';

/** The key of the metadata that ties a message to its task (MCP 2025-11-25 "Tasks"). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * The questions a task's run waits on, kept as the task's input requests by key: the task is
 * `input_required` while any waits (its status message the first one's message), `working`
 * again once none does. Each era names the keys and shapes the requests; the answers come back
 * by key. Questions asked before the task is stored are written once it is.
 */
abstract class TaskQuestions implements Asker, AnsweringTask, TaskLink {
  readonly #pending = new Map<string, Question>();
  readonly #keys = new Map<Question, string>();
  #taskId: string | undefined;
  #written: Promise<void> = Promise.resolve();

  constructor(
    readonly canAsk: boolean,
    readonly run: AskingRun,
    readonly inputs: TaskInputs,
    readonly serverId: string,
  ) {}

  /** The question's key among the task's input requests: unique for the task's lifetime. */
  protected abstract keyFor(question: Question): string;
  /** The request the client is to answer, by the era's rules. */
  protected abstract requestOf(question: Question, taskId: string): Record<string, unknown>;
  /** `key` no longer waits for an answer. */
  protected forget(_key: string): void {}

  toTask(): void {}

  bind(taskId: string): void {
    this.#taskId = taskId;
    if (this.#pending.size > 0) this.#write();
  }

  put(question: Question): void {
    const key = this.keyFor(question);
    this.#pending.set(key, question);
    this.#keys.set(question, key);
    this.#write();
  }

  settled(question: Question): void {
    const key = this.#keys.get(question);
    if (key === undefined) return;
    this.#drop(question, key);
    // A run that is over has its end written, which clears what it waited on.
    if (!this.run.over) this.#write();
  }

  closed(): void {
    for (const [question, key] of [...this.#keys]) this.#drop(question, key);
  }

  /** The answer to the question of `key`: settled, or put again (under a new key) when it did not fit. */
  protected take(key: string, reply: ClientAnswer): void {
    const question = this.#pending.get(key);
    if (question === undefined) return;
    if (question.answer(reply) !== 'again') return;
    this.#drop(question, key);
    this.put(question);
  }

  /** For a question of this asker, its key, if it still waits. */
  protected keyOf(question: Question): string | undefined {
    return this.#keys.get(question);
  }

  answer(responses: Record<string, unknown>): Promise<void> {
    for (const key of Object.keys(responses)) this.take(key, { result: responses[key] });
    return this.#written;
  }

  #drop(question: Question, key: string): void {
    this.#keys.delete(question);
    this.#pending.delete(key);
    this.forget(key);
  }

  #write(): void {
    const taskId = this.#taskId;
    if (taskId === undefined) return;
    let requests: Record<string, unknown> | null = null;
    let message: string | null = null;
    for (const [key, question] of this.#pending) {
      requests ??= {};
      message ??= question.message;
      Object.defineProperty(requests, key, { value: this.requestOf(question, taskId), enumerable: true });
    }
    this.#written = this.inputs.write(taskId, this.serverId, requests, message, this);
  }
}

/**
 * MCP 2025-11-25 "Tasks": a question is an `elicitation/create` request tied to its task
 * (`_meta`), kept with the task by its request id, sent on the stream of a `tasks/result` that
 * waits for the task (on any instance); the client POSTs its answer, which reaches the run as an
 * answer on the call's stream does.
 */
export class LegacyTaskQuestions extends TaskQuestions implements TakesAnswers {
  constructor(
    canAsk: boolean,
    run: AskingRun,
    inputs: TaskInputs,
    serverId: string,
    readonly parts: AskingParts,
  ) {
    super(canAsk, run, inputs, serverId);
  }

  protected keyFor(question: Question): string {
    return this.parts.waiting.add(question, this.serverId, this);
  }

  protected requestOf(question: Question, taskId: string): Record<string, unknown> {
    const params = { ...question.params(true, true), _meta: { [RELATED_TASK]: { taskId } } };
    return { method: 'elicitation/create', params };
  }

  protected override forget(key: string): void {
    this.parts.waiting.remove(key);
  }

  answered(question: Question, reply: ClientAnswer): void {
    const key = this.keyOf(question);
    if (key !== undefined) this.take(key, reply);
  }
}

/** SEP-2663: a question is one of the task's `inputRequests`; `tasks/update` answers it by key. */
class ModernTaskQuestions extends TaskQuestions {
  readonly #used = new Set<string>();

  protected keyFor(question: Question): string {
    let key = question.key;
    for (let n = 2; this.#used.has(key); n++) key = `${question.key}-${n}`;
    this.#used.add(key);
    return key;
  }

  protected requestOf(question: Question): Record<string, unknown> {
    return { method: 'elicitation/create', params: question.params(true, true) };
  }
}

/**
 * A 2026-07-28 call that may become a task: until it does, its run asks with `input_required`
 * results (MCP 2026-07-28 multi round-trip requests), which come before any task (SEP-2663); once
 * it is a task, with the task's input requests.
 */
export class ModernTaskAsker implements Asker, TaskLink {
  readonly rounds: RoundsAsker;
  #task: ModernTaskQuestions | undefined;

  constructor(
    readonly run: AskingRun,
    call: RoundsCall,
    parts: AskingParts,
    readonly inputs: TaskInputs,
  ) {
    const asker = this;
    // Once a task, the run has no reply to end with an `input_required` result.
    const rounds: AskingRun = {
      get questions() {
        return run.questions;
      },
      get over() {
        return run.over;
      },
      get replying() {
        return asker.#task === undefined && run.replying;
      },
      pause: (pause) => run.pause(pause),
      resume: (round: Round) => run.resume(round),
    };
    this.rounds = new RoundsAsker(rounds, call, parts.parked, parts.signer);
    this.rounds.link = this;
  }

  get canAsk(): boolean {
    return this.rounds.canAsk;
  }

  put(question: Question): void {
    if (this.#task) this.#task.put(question);
    else this.rounds.put(question);
  }

  settled(question: Question): void {
    if (this.#task) this.#task.settled(question);
  }

  closed(): void {
    this.rounds.closed();
    this.#task?.closed();
  }

  toTask(): void {
    if (this.#task) return;
    const { server } = this.rounds.call;
    this.#task = new ModernTaskQuestions(this.canAsk, this.run, this.inputs, server.id);
    // A `requestState` of an earlier round no longer resumes it.
    this.rounds.closed();
    // Questions asked in the same turn, not yet put in an `input_required` result.
    for (const question of this.run.questions) this.#task.put(question);
  }

  bind(taskId: string): void {
    this.#task?.bind(taskId);
  }
}
