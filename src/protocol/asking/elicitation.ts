import { randomBytes } from 'node:crypto';
import type { Asker, ClientAnswer, Question } from '../../tool/ask.js';
import type { ServerRecord } from '../../types/index.js';
import { elicitsOnStream, titledElicitation } from '../../versions.js';
import { sessionMayAsk } from '../session-id.js';
import type { Signer } from '../signing.js';
import type { ReplyStream } from '../stream/reply-stream.js';

/** Where a POSTed answer goes: the asker that put the question (on a call's stream, or a task's). */
export interface TakesAnswers {
  answered(question: Question, reply: ClientAnswer): void;
}

/** A question sent as an `elicitation/create` request, waiting for the client to POST its answer. */
interface Waiting {
  question: Question;
  serverId: string;
  asker: TakesAnswers;
}

/**
 * The questions of this process's runs that wait for an answer POSTed by their client, by the id
 * of their `elicitation/create` request. Transient by nature: a run waits in one process; an answer
 * that lands on another instance of a farm is passed on to it.
 */
export class WaitingQuestions {
  readonly #byId = new Map<string, Waiting>();

  /** Registers a question; its request id is unguessable, as an answer to it may come from any instance. */
  add(question: Question, serverId: string, asker: TakesAnswers): string {
    const id = `elicitation-${randomBytes(16).toString('base64url')}`;
    this.#byId.set(id, { question, serverId, asker });
    return id;
  }

  remove(id: string): void {
    this.#byId.delete(id);
  }

  /** Gives the answer to its question when it waits here, for this server; `false` when none does. */
  answer(serverId: string, id: unknown, reply: ClientAnswer): boolean {
    if (typeof id !== 'string') return false;
    const waiting = this.#byId.get(id);
    if (waiting === undefined || waiting.serverId !== serverId) return false;
    this.#byId.delete(id);
    waiting.asker.answered(waiting.question, reply);
    return true;
  }
}

/**
 * Asks on the call's event stream (MCP 2025-06-18 and 2025-11-25 "Elicitation"): each question is
 * an `elicitation/create` request sent before the response, which makes the reply a stream; the
 * client POSTs its answer to the same endpoint. Only a client that declared elicitation at
 * `initialize` (its signed `Mcp-Session-Id` says so) and takes an event stream can be asked.
 */
export class ElicitationAsker implements Asker, TakesAnswers {
  readonly canAsk: boolean;
  readonly #ids = new Map<Question, string>();

  constructor(
    readonly live: ReplyStream | undefined,
    readonly server: ServerRecord,
    readonly protocolVersion: string,
    readonly waiting: WaitingQuestions,
    signer: Signer,
    sessionId: string | undefined,
  ) {
    this.canAsk =
      live !== undefined && elicitsOnStream(protocolVersion) && sessionMayAsk(signer, server, sessionId);
  }

  put(question: Question): void {
    const live = this.live as ReplyStream;
    const id = this.waiting.add(question, this.server.id, this);
    this.#ids.set(question, id);
    const titled = titledElicitation(this.protocolVersion);
    // `mode` came with MCP 2025-11-25; the 2025-06-18 schema has none.
    live.say({ jsonrpc: '2.0', id, method: 'elicitation/create', params: question.params(titled, titled) });
  }

  /** The client's answer to `question`: settled, or put once more when it did not fit. */
  answered(question: Question, reply: ClientAnswer): void {
    this.#ids.delete(question);
    if (question.answer(reply) === 'again') this.put(question);
  }

  settled(question: Question): void {
    const id = this.#ids.get(question);
    if (id === undefined) return;
    this.#ids.delete(question);
    this.waiting.remove(id);
  }

  closed(): void {}
}
