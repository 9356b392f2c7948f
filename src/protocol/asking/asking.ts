import type { EmitEvent } from '../../observe/events.js';
import type { Farm } from '../../store/farm/farm.js';
import type { StreamEventStore } from '../../store/stream-events.js';
import type { AskChannel, Asker, AskingRun, ClientAnswer, Question } from '../../tool/ask.js';
import { subjectOf } from '../../tool/inflight.js';
import { isJsonObject } from '../../util/plain-object.js';
import { isModernVersion } from '../../versions.js';
import type { RequestId } from '../messages.js';
import type { ErrorReporter } from '../report.js';
import type { Signer } from '../signing.js';
import { ReplyStream } from '../stream/reply-stream.js';
import type { ServingTarget } from '../target.js';
import type { ToolCall } from '../tool-call.js';
import { ElicitationAsker, WaitingQuestions } from './elicitation.js';
import { InputRelay } from './input-relay.js';
import {
  invalidRequestState,
  NO_WAITING_RUN,
  ParkedRuns,
  RoundsAsker,
  type RoundsCall,
  readRequestState,
} from './input-required.js';

/** How the runs of one core reach a person, in both eras (docs/asking-a-person.md). */
export interface Asking extends AskChannel<ToolCall<unknown>> {
  readonly signer: Signer;
  /**
   * A client's answer POSTed to `target`'s endpoint: to its question in this process, or, in a
   * farm, announced to the instance where it waits.
   */
  answer(target: ServingTarget, id: RequestId, reply: ClientAnswer): void;
  /**
   * A 2026-07-28 `tools/call` that carries a `requestState`: the run it names goes on, its reply
   * this request's. Invalid params for a state that is not good (tampered, expired, used).
   */
  resume(call: ToolCall<unknown>): Promise<unknown>;
  /** Whether the run a retry's `requestState` names waits in this process (`true` too for a state that is not good). */
  waitsHere(call: ToolCall<unknown>): boolean;
}

/** What passes input between the instances of a farm: its PostgreSQL channel, and where retries are stored. */
export interface FarmedInput {
  farm: Farm;
  streams: StreamEventStore;
  report: ErrorReporter;
}

export function createAsking(signer: Signer, farmed?: FarmedInput, emit?: EmitEvent): Asking {
  const waiting = new WaitingQuestions();
  const parked = new ParkedRuns();
  const relay = farmed && new InputRelay(farmed.farm, farmed.streams, waiting, parked, farmed.report);
  const parts = { waiting, parked, signer };
  return {
    signer,

    askerFor(call: ToolCall<unknown>, run: AskingRun): Asker {
      const { target } = call;
      const asker = call.tasked
        ? call.tasked.askerFor(run, call, parts)
        : isModernVersion(call.protocolVersion)
          ? new RoundsAsker(run, roundsCall(call), parked, signer)
          : new ElicitationAsker(
              call.observer instanceof ReplyStream ? call.observer : undefined,
              target.server,
              call.protocolVersion,
              waiting,
              signer,
              call.sessionId,
            );
      return emit ? countedWaits(asker, target.server.id, emit) : asker;
    },

    answer(target, id, reply) {
      if (!waiting.answer(target.server.id, id, reply)) relay?.answer(target.server.id, id, reply);
    },

    waitsHere(call) {
      try {
        return parked.get(readRequestState(signer, roundsCall(call)).runId) !== undefined;
      } catch {
        return true;
      }
    },

    resume(call) {
      const rounds = roundsCall(call);
      let state: ReturnType<typeof readRequestState>;
      try {
        state = readRequestState(signer, rounds);
      } catch (error) {
        return Promise.reject(error);
      }
      const asker = parked.get(state.runId);
      if (asker === undefined && relay) return relay.remote(call, state);
      if (asker === undefined || asker.round !== state.round) {
        const why = asker === undefined ? NO_WAITING_RUN : 'was answered already';
        return Promise.reject(invalidRequestState(why, call.id));
      }
      const given = call.params.inputResponses;
      call.tasked?.adopt(asker);
      const round = {
        id: call.id,
        onClosed: call.onClosed,
        observer: call.observer,
        request: call.request,
        ...(call.runKey === undefined ? {} : { runKey: String(call.runKey) }),
      };
      return asker.resume(round, isJsonObject(given) ? given : {});
    },
  };
}

function roundsCall(call: ToolCall<unknown>): RoundsCall {
  return {
    id: call.id,
    params: call.params,
    server: call.target.server,
    subject: subjectOf(call.target.caller),
  };
}

/**
 * The asker, telling the `metrics` sink when each question starts and stops waiting for a person
 * (observe/events.ts): once per question, however often it is put again.
 */
function countedWaits(asker: Asker, serverId: string, emit: EmitEvent): Asker {
  const waiting = new Set<Question>();
  const settle = (question: Question): void => {
    if (waiting.delete(question)) emit({ type: 'input.settled', serverId });
  };
  return {
    get canAsk() {
      return asker.canAsk;
    },
    put(question) {
      if (!waiting.has(question)) {
        waiting.add(question);
        emit({ type: 'input.waiting', serverId });
      }
      asker.put(question);
    },
    settled(question) {
      settle(question);
      asker.settled(question);
    },
    closed() {
      for (const question of [...waiting]) settle(question);
      asker.closed();
    },
  };
}
