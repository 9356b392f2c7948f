import type { AppRun, AskAnswer, AskOptions, EndUser } from '../types/index.js';
import type { ToolRun } from './tool-run.js';

/** What the app's run reads through its shared accessors: the run's own state, made when first read. */
export interface RunHandle {
  readonly signal: AbortSignal;
  readonly canAsk: boolean;
  /** `run.ask`, bound to the run, made on first read. */
  readonly ask: (options: AskOptions) => Promise<AskAnswer>;
}

/** Where the app's run keeps its handle, out of sight of `Object.keys`, spreads and JSON. */
const RUN = Symbol('run');

type HandledRun = { [RUN]: RunHandle };

/**
 * `run.signal`, `run.canAsk` and `run.ask`, one getter each for every run: own, enumerable
 * accessors, so that an app that spreads its run still gets them, each made only when something
 * reads it (the signal by `RunStop`, the asker by the run).
 */
const accessor = (read: (handle: RunHandle) => unknown): PropertyDescriptor => ({
  get(this: HandledRun) {
    return read(this[RUN]);
  },
  enumerable: true,
  configurable: true,
});
const SIGNAL = accessor((handle) => handle.signal);
const CAN_ASK = accessor((handle) => handle.canAsk);
const ASK = accessor((handle) => handle.ask);

/**
 * The run the app gets. Optional fields are set only when present, and `run.signal`, `run.canAsk`
 * and `run.ask` read the run through shared getters, so that every run has the same few shapes.
 */
export function appRunOf<HostRequest>(
  call: ToolRun<HostRequest>,
  endUser: EndUser,
  handle: RunHandle,
): AppRun<HostRequest> {
  const run = {
    app: call.app,
    server: call.server,
    endUser,
    inputs: call.inputs,
  } as AppRun<HostRequest> & HandledRun;
  if (call.query !== undefined) run.query = call.query;
  if (call.conversationId !== undefined) run.conversationId = call.conversationId;
  Object.defineProperty(run, 'signal', SIGNAL);
  run.protocolVersion = call.protocolVersion;
  run.request = call.request;
  if (call.auth) run.auth = call.auth;
  run.caller = call.caller;
  Object.defineProperty(run, 'canAsk', CAN_ASK);
  Object.defineProperty(run, 'ask', ASK);
  Object.defineProperty(run, RUN, { value: handle });
  return run;
}
