import type { AppFile, EndUser, HostApp, ServerRecord } from './app.js';
import type { AuthInfo } from './auth.js';

/** One run of a host app, handed to `runApp` (see the README, "runApp, mode by mode"). */
export interface AppRun<HostRequest = unknown> {
  app: HostApp;
  server: ServerRecord;
  endUser: EndUser;
  inputs: Record<string, unknown>;
  /** Chat modes: the user's question; completion: `""`; workflow: absent. */
  query?: string;
  /**
   * Apps with `conversations: true`: the `conversation_id` the client passed back to continue a
   * conversation; absent for a new one.
   */
  conversationId?: string;
  /** Aborted on cancellation, on timeout, and when the client closes the response. */
  signal: AbortSignal;
  protocolVersion: string;
  /**
   * The HTTP request the call came in, as the framework gave it. In the 2026-07-28 era a run that
   * asks a person is served over several requests: this is the one being served, and `undefined`
   * while the run waits between them or when the answer reached another instance of a farm
   * (docs/asking-a-person.md): read what the run needs of it before asking.
   */
  request: HostRequest;
  /** On an `"oauth"` server: who called, as `verifyToken` said (never the token). Absent otherwise. */
  auth?: AuthInfo;
  /** Who called: a caller key, a signed-in OAuth subject, or whoever holds the server code. */
  caller: Caller;
  /**
   * Whether this call can reach a person: the client declared elicitation (docs/asking-a-person.md),
   * in a task too (docs/tasks.md). Without it, `ask` rejects with `HumanInputUnavailable`.
   */
  readonly canAsk: boolean;
  /**
   * Asks the person behind the client and waits for the answer: a form of `fields`, shown with
   * `message`. Resolves `cancel` with `reason: 'timeout'` after `timeoutMs`; rejects when the call
   * is cancelled, and at once with `HumanInputUnavailable` when the client cannot ask.
   */
  ask(options: AskOptions): Promise<AskAnswer>;
}

/**
 * Who made a call: `key`, a caller key of a `"key"` server (its id and name, never the secret);
 * `oauth`, a user signed in to an `"oauth"` server; `code`, whoever holds a `"code"` server's URL.
 */
export type Caller =
  | { kind: 'key'; id: string; name: string }
  | { kind: 'oauth'; subject: string }
  | { kind: 'code' };

/**
 * One field of a question to a person: an input form entry (flat or nested) of the types a person
 * can fill in a client's form: `text-input`, `paragraph`, `select`, `number`, `checkbox`.
 */
export type AskField = AskVariable | { [K in AskVariable['type']]?: Omit<AskVariable, 'type'> };

/** A field of `run.ask`, in the flat form (docs/asking-a-person.md, "Fields"). */
export interface AskVariable {
  type: 'text-input' | 'paragraph' | 'select' | 'number' | 'checkbox';
  variable: string;
  label?: string;
  description?: string;
  required?: boolean;
  /** `text-input` and `paragraph`: the longest answer. */
  max_length?: number;
  /** `select`: the values, or values with a label to show instead. */
  options?: (string | { value: string; label: string })[];
  /** `select`: the person picks any number of the options; the answer is a list. */
  multiple?: boolean;
  /**
   * `select` with labels: sent as `enum` with `enumNames` (the form MCP 2025-06-18 knows) even
   * where MCP 2025-11-25's titled `oneOf` could be used.
   */
  legacy_enum_names?: boolean;
  /** `number`: whole numbers only (`integer` in the schema). */
  integer?: boolean;
  default?: unknown;
}

/** What `run.ask` is given. */
export interface AskOptions {
  /** What the person is asked, shown above the form. */
  message: string;
  fields: AskField[];
  /** How long to wait for the answer, in ms. Default: the `humanInputTimeoutMs` option (600000). */
  timeoutMs?: number;
  /**
   * Names the question among those of one run (the key of `inputRequests` in MCP 2026-07-28).
   * Default: `question-<n>`, n counting the run's questions from 1.
   */
  key?: string;
}

/**
 * The person's answer. `accept` carries the values of the fields (a default fills a field left
 * out); `cancel` has a `reason` when the package decided it: `timeout`, or `invalid_answer` when
 * an answer did not fit the fields twice.
 */
export type AskAnswer =
  | { action: 'accept'; values: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel'; reason?: 'timeout' | 'invalid_answer' };

/** `conversationId`: the conversation this answer belongs to, for apps with `conversations: true`. */
export type AppResult =
  | { outputs: Record<string, unknown> | null }
  | { answer: string; files?: AppFile[]; conversationId?: string };

export type AppEvent =
  | { event: 'message' | 'agent_message' | 'message_replace'; answer: string; conversationId?: string }
  | { event: 'agent_thought'; thought: string }
  | { event: 'workflow_finished'; outputs: Record<string, unknown> | null }
  | { event: 'message_file'; file: AppFile }
  | { event: 'progress'; progress: number; total?: number; message?: string }
  /**
   * The end of an answer, as Dify's chat events end: `metadata.usage` (the tokens the run used,
   * as a JSON object) becomes the result's `_meta.usage` (docs/adapters.md, "Usage").
   */
  | { event: 'message_end'; metadata?: { usage?: Record<string, unknown> } }
  | { event: 'error'; message: string };

/** Runs one app once: a plain result, or a stream of events. */
export type RunApp<HostRequest = unknown> = (
  run: AppRun<HostRequest>,
) => Promise<AppResult | AsyncIterable<AppEvent>> | AppResult | AsyncIterable<AppEvent>;
