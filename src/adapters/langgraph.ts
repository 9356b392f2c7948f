/**
 * `express-app-mcp/langgraph`: a compiled LangGraph graph as the `runApp` of a workflow app
 * (docs/adapters.md).
 */
import { randomUUID } from 'node:crypto';
import { Command, MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import { AppRunError, ConfigurationError } from '../errors/package-errors.js';
import type { AppEvent, AppRun, HostApp, RunApp } from '../types/index.js';
import { functionOption, parseFactoryOptions } from '../util/factory-options.js';
import { isJsonObject, isPlainJsonObject } from '../util/plain-object.js';
import { type AskAnswer, type AskRequest, asJson, askOf, untilAborted } from './shared.js';

/** A compiled graph (`new StateGraph(...).compile()`, `entrypoint(...)`), as far as the adapter's types read it. */
export interface CompiledGraphLike {
  invoke(input: never, options?: never): Promise<unknown>;
  stream(input: never, options?: never): Promise<AsyncIterable<unknown>>;
}

/** The input a graph takes (a state update). */
export type GraphInput<G> = G extends { invoke(input: infer I, ...rest: never[]): unknown }
  ? Exclude<I, null>
  : never;

/** The state a graph ends with. */
export type GraphState<G> = G extends { invoke(...args: never[]): Promise<infer S> } ? S : never;

export interface FromLangGraphOptions<G extends CompiledGraphLike, HostRequest = unknown> {
  /** The graph's input for a run. Default: the run's inputs, the tool's arguments. */
  input?: (run: AppRun<HostRequest>) => GraphInput<G> | PromiseLike<GraphInput<G>>;
  /**
   * The run's outputs from the graph's final state. Default: the state's keys the app declares as
   * its `outputs`; with none declared, the whole state.
   */
  outputs?: (
    state: GraphState<G>,
    run: AppRun<HostRequest>,
  ) => Record<string, unknown> | PromiseLike<Record<string, unknown>>;
}

const optionsSchema = z.strictObject({
  input: functionOption("must be a function (run) => the graph's input").optional(),
  outputs: functionOption('must be a function (state, run) => the outputs').optional(),
});

/**
 * A `runApp` for a workflow app that runs a LangGraph graph: each node that finishes is a
 * `progress` event named after the node, the final state gives the outputs, and `run.signal` stops
 * the graph. An `interrupt(value)` in a node asks the person behind the client and resumes the graph
 * with the answer (`Command({ resume })`); where the client cannot ask, the run ends with an error
 * result. A graph compiled without a checkpointer runs on a copy with one of the adapter's own (in
 * memory, one thread per run, deleted when the run ends), which `interrupt()` needs.
 */
export function fromLangGraph<G extends CompiledGraphLike, HostRequest = unknown>(
  graph: G,
  options: FromLangGraphOptions<G, HostRequest> = {},
): RunApp<HostRequest> {
  if (typeof (graph as { stream?: unknown })?.stream !== 'function') {
    throw new ConfigurationError(
      'invalid_options',
      'fromLangGraph: its first argument must be a compiled graph, new StateGraph(...).compile()',
    );
  }
  const parsed = parseFactoryOptions(optionsSchema, options ?? {}, 'fromLangGraph');
  const runner = runnerOf(graph as unknown as Graph);
  const hooks = parsed as Hooks<HostRequest>;
  return (run) => workflow(runner, hooks, run);
}

/** The options as the run uses them, past their types. */
interface Hooks<HostRequest> {
  input?: (run: AppRun<HostRequest>) => unknown;
  outputs?: (
    state: never,
    run: AppRun<HostRequest>,
  ) => Record<string, unknown> | PromiseLike<Record<string, unknown>>;
}

/** The graph as the adapter drives it. */
interface Graph {
  stream(input: unknown, config: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  withConfig?(config: Record<string, unknown>): Graph;
  checkpointer?: unknown;
}

interface Runner {
  graph: Graph;
  /** The adapter's own checkpointer, whose threads it deletes; none when the graph has its own. */
  saver?: MemorySaver;
}

/**
 * `checkpointer: false` says the graph keeps no state, and is left so; a graph without one gets the
 * adapter's, on a copy (`withConfig` returns a new graph), so the caller's graph is not changed.
 */
function runnerOf(graph: Graph): Runner {
  if (graph.checkpointer !== undefined || typeof graph.withConfig !== 'function') return { graph };
  const saver = new MemorySaver();
  const copy = graph.withConfig({});
  copy.checkpointer = saver;
  return { graph: copy, saver };
}

interface Interrupt {
  id?: string;
  value: unknown;
}

const INTERRUPT = '__interrupt__';

async function* workflow<HostRequest>(
  { graph, saver }: Runner,
  options: Hooks<HostRequest>,
  run: AppRun<HostRequest>,
): AsyncGenerator<AppEvent> {
  if (run.app.mode !== 'workflow') {
    throw new Error(`fromLangGraph runs workflow apps, and "${run.app.name}" is a ${run.app.mode} app`);
  }
  const threadId = randomUUID();
  const config = {
    configurable: { thread_id: threadId },
    streamMode: ['updates', 'values'],
    signal: run.signal,
  };
  let state: unknown;
  let step = 0;
  try {
    let input: unknown = options.input ? await options.input(run) : run.inputs;
    for (;;) {
      const interrupts: Interrupt[] = [];
      const chunks = await graph.stream(input, config);
      for await (const chunk of untilAborted(chunks, run.signal)) {
        if (!Array.isArray(chunk)) continue;
        const [mode, payload] = chunk as [unknown, unknown];
        if (!isJsonObject(payload)) continue;
        if (mode === 'values') {
          // The values at an interrupt are the interrupt, not a state.
          if (!(INTERRUPT in payload)) state = payload;
          continue;
        }
        if (mode !== 'updates') continue;
        for (const [node, update] of Object.entries(payload)) {
          if (node === INTERRUPT) interrupts.push(...(Array.isArray(update) ? (update as Interrupt[]) : []));
          else yield { event: 'progress', progress: ++step, message: node };
        }
      }
      if (run.signal.aborted) return;
      if (interrupts.length === 0) break;
      input = new Command({ resume: await resumeOf(interrupts, run) });
      if (run.signal.aborted) return;
    }
  } catch (error) {
    // A stopped graph throws its abort: the run is over, and the package has answered already.
    if (run.signal.aborted) return;
    throw error;
  } finally {
    if (saver) await saver.deleteThread(threadId).catch(() => {});
  }
  const outputs = options.outputs ? await options.outputs(state as never, run) : declaredOf(state, run.app);
  // The core takes outputs that are no object for none at all: from the hook, that is a mistake to tell.
  if (!isPlainJsonObject(outputs)) {
    throw new TypeError(
      `fromLangGraph: the outputs hook must return a plain object of outputs, and it returned ${kindOf(outputs)}`,
    );
  }
  yield { event: 'workflow_finished', outputs };
}

/** What a value is, in words, for an error message (never the value itself: it is the app's data). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'object') return 'an object that is not a plain object';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * Asks the person each interrupt's question and gives the answers back as the graph takes them:
 * by interrupt id (LangGraph's resume map), or, for one interrupt without an id, the answer alone.
 * Each answer is `{ action: 'accept', values }`, `{ action: 'decline' }` or `{ action: 'cancel' }`.
 */
async function resumeOf(interrupts: Interrupt[], run: object): Promise<unknown> {
  const ask = askOf(run);
  if (!ask) {
    throw new AppRunError(
      "the app needs a person's answer to go on, and this client cannot ask for one (it does not support elicitation)",
    );
  }
  const answers: Record<string, AskAnswer> = {};
  if (interrupts.length === 1 && typeof interrupts[0]!.id !== 'string')
    return ask(questionOf(interrupts[0]!.value));
  for (const { id, value } of interrupts) answers[String(id)] = await ask(questionOf(value));
  return answers;
}

/** The field a question without fields of its own is answered in. */
const ANSWER_FIELD = { paragraph: { variable: 'answer', label: 'Answer', required: true } };

/**
 * An interrupt's value as a question: `{ message, fields?, timeoutMs? }` as it is, with one text
 * field, `answer`, when it has no fields (absent or empty) of its own; a string as the message,
 * answered in that field too; anything else shown as JSON, answered the same way. Fields that are
 * there but are no list go to `run.ask` as they are, which names the problem.
 */
function questionOf(value: unknown): AskRequest {
  if (isJsonObject(value) && typeof value.message === 'string') {
    const { fields } = value;
    const none = fields === undefined || fields === null || (Array.isArray(fields) && fields.length === 0);
    const question: AskRequest = {
      message: value.message,
      fields: none ? [ANSWER_FIELD] : (fields as AskRequest['fields']),
    };
    if (typeof value.timeoutMs === 'number') question.timeoutMs = value.timeoutMs;
    return question;
  }
  return { message: typeof value === 'string' ? value : asJson(value), fields: [ANSWER_FIELD] };
}

/** The final state's keys the app declares as outputs; with none declared, the whole state. */
function declaredOf(state: unknown, app: HostApp): Record<string, unknown> {
  if (!isJsonObject(state)) return {};
  if (!app.outputs || app.outputs.length === 0) return { ...state };
  const outputs: Record<string, unknown> = {};
  for (const { variable } of app.outputs)
    if (Object.hasOwn(state, variable)) outputs[variable] = state[variable];
  return outputs;
}

/** The question an `interrupt(value)` may ask, and the answer it resumes with. */
export type { AskAnswer, AskRequest } from './shared.js';
