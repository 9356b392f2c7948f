import type { Request } from 'express';
import { z } from 'zod';
import { AuthOptionsSchema } from '../auth/auth-options.js';
import { ConfigurationError } from '../errors/package-errors.js';
import type { ResolveServer, RunApp } from '../express/types.js';
import type { McpEventSink } from '../observe/events.js';
import type { OnCall } from '../observe/on-call.js';
import { DEFAULT_TASK_OPTIONS } from '../protocol/context.js';
import type { ErrorContext } from '../protocol/report.js';
import type { RateLimit } from '../store/farm/rate-limit.js';
import { isResolverFactory } from '../store/resolver.js';
import type { ServerStore } from '../store/types.js';
import { DEFAULT_HUMAN_INPUT_TIMEOUT_MS, DEFAULT_MAX_WAITING_RUNS } from '../tool/ask.js';
import { DEFAULT_MAX_INLINE_RESULT_BYTES } from '../tool/call.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DATA_URL_BYTES } from '../tool/file-input.js';
import { DEFAULT_MAX_RESULT_BYTES, MAX_MAX_RESULT_BYTES } from '../tool/result-size.js';
import type { AuthOptions, CanUseTool, HostApp } from '../types/index.js';
import { functionOption, methodsOption, parseFactoryOptions } from '../util/factory-options.js';
import { ThrottledLog } from '../util/throttled-log.js';
import { PACKAGE_VERSION } from '../versions.js';
import { AllowedHostsSchema } from './allowed-hosts.js';
import { AllowedOriginsSchema } from './allowed-origins.js';

/** Options of `mcpServer()`. Only `resolveServer` and `runApp` are required. */
export interface McpServerOptions {
  /** Maps the URL's server code to its server and app; `null` for an unknown code. */
  resolveServer: ResolveServer;
  /** Runs one app once (see the README, "runApp, mode by mode"). */
  runApp: RunApp;
  /** Shown in `initialize` and `server/discover`. Default: `{ name: 'express-app-mcp', version: <package version> }`. */
  serverInfo?: { name: string; version: string };
  /** Overrides the tool name derived from the app name; the result is still made valid. Default: derived from `app.name`. */
  toolName?: (app: HostApp) => string;
  /**
   * Whether a caller may use a tool (docs/toolsets.md): asked for each tool of the server on each
   * request; a tool it says no to is absent from `tools/list` and answers as an unknown tool, on
   * toolsets and one-app servers alike. A hook that throws answers an internal error. Default: every tool.
   */
  canUseTool?: CanUseTool;
  /**
   * Browser origins allowed besides the request's own origin, each written as browsers send
   * `Origin`: `scheme://host[:port]`, no path (`https://app.example.com`, `http://localhost:5173`),
   * matched whatever its case; `'*'` allows every origin. Anything else is a `ConfigurationError`.
   * Default: none.
   */
  allowedOrigins?: string[];
  /**
   * Host names allowed in `Host` when the server listens on loopback, e.g. behind a reverse proxy,
   * on any port (`mcp.example.com`, as `@modelcontextprotocol/express` takes them); an origin
   * (`https://mcp.example.com`) counts as its host, and an entry that names a port allows that port
   * only. Default: none besides localhost, 127.0.0.1 and [::1]. On any address, they are also the
   * hosts an `"oauth"` server's token audience may be taken from when `auth.resourceBaseUrl` is
   * not set (docs/security.md).
   */
  allowedHosts?: string[];
  /**
   * Largest body read, in bytes. Default: 4259840 (4 MiB and 64 KiB), which fits the default
   * largest `data:` file (3 MiB, 4 MiB as base64) and the rest of its request.
   */
  maxBodyBytes?: number;
  /**
   * Largest file a client may send inline, as a base64 `data:` URL, in decoded bytes; at most
   * `maxBodyBytes`. Default: 3 MiB, or `maxBodyBytes` when that is smaller.
   */
  maxDataUrlBytes?: number;
  /**
   * Most bytes of inline files (images, audio, other data) one `tools/call` result may carry; a
   * result with more is an error result, reported to `onError`. Default: 4 MiB.
   */
  maxInlineResultBytes?: number;
  /**
   * Most bytes one `tools/call` result may take once serialized as JSON (its text,
   * `structuredContent`, files and `_meta` together; a chat answer counts twice, as text and as
   * `structuredContent.answer`). A larger result is an error result that says it is too large,
   * reported to `onError`; a chat answer that grows past it while it streams ends the run there.
   * At most 268435456 (256 MiB). Default: 16777216 (16 MiB).
   */
  maxResultBytes?: number;
  /** Longest a `tools/call` may run before it is aborted, in ms; `0` disables the limit. Default: 300000 (5 minutes). */
  callTimeoutMs?: number;
  /**
   * Silence, in ms, after which a running `tools/call` sends a heartbeat: its reply becomes an event
   * stream if it is not one yet, and gets a progress notification (with a progress token) or an SSE
   * comment line, so that clients and proxies keep waiting (README, "Long runs"); a resumed stream
   * gets a comment line after that long without an event. `0` disables heartbeats. Default: 10000.
   */
  heartbeatMs?: number;
  /** Receives internal failures with their cause; nothing of them reaches the client. Default: `console.error`, a repeated failure once per 10 s with a count. */
  onError?: (error: unknown, context: ErrorContext) => void;
  /**
   * Called once per finished `tools/call` with its server, app, tool, end user, protocol version,
   * duration and outcome (never the server code), for audit logs and metrics. Default: none.
   */
  onCall?: OnCall;
  /**
   * Prometheus metrics: `mcpMetrics()` from `express-app-mcp/metrics`, or any object with
   * `onEvent(event)`, told when calls start and end, streams open and close, runs wait for a person
   * and tasks change status (docs/metrics.md). Default: none.
   */
  metrics?: McpEventSink;
  /**
   * Per-user access for servers in `"oauth"` mode: how bearer tokens are checked and which
   * authorization servers mint them (see the README, "Per-user access with OAuth"). Default: none,
   * and `"oauth"` servers refuse every request.
   */
  auth?: McpAuthOptions;
  /**
   * The store behind `resolveServer`, when several instances share it: on PostgreSQL a
   * `notifications/cancelled` then reaches the call on any instance, and `rateLimit` is counted
   * for all of them together. Default: none (each instance on its own).
   */
  store?: ServerStore;
  /**
   * At most `requests` requests per server in any `windowMs` milliseconds; more answer 429 with
   * `Retry-After`. Each `notifications/cancelled` counts as a request, and so does each message of
   * a batch (docs/http-contract.md, row 15a). Shared by the instances through a PostgreSQL
   * `store`, counted in this process otherwise. Needs the `rate-limiter-flexible` package.
   * Default: no limit.
   */
  rateLimit?: RateLimit;
  /**
   * The longest a server lookup may take, in ms, before the request answers 503 with
   * `Retry-After`; `0` disables the limit. Default: 5000.
   */
  resolveTimeoutMs?: number;
  /**
   * How long a streamed reply's events are kept after its response, for a client that resumes it
   * with `GET` and `Last-Event-ID` (needs a Knex `store`). Default: 300000 (5 minutes).
   */
  streamRetentionMs?: number;
  /**
   * When set, a streamed reply is ended after this long with a `retry` hint and the client resumes
   * it with `GET` (MCP 2025-11-25 SSE polling), for proxies that cut long requests; never before
   * the client holds an event id to resume from (docs/http-contract.md, "Resumable streams").
   * Default: 0 (never).
   */
  streamWindowMs?: number;
  /**
   * How long a stored stream's run counts as alive after its instance last said so; the instance
   * says so every third of it. A resumed stream whose run's lease has lapsed (its instance
   * stopped) ends at once with an error response saying the run was lost (docs/http-contract.md,
   * "Resumable streams"). Default: 15000.
   */
  streamLeaseMs?: number;
  /**
   * How long `run.ask` waits for a person's answer when the app gives no `timeoutMs`, in ms
   * (docs/asking-a-person.md). Default: 600000 (10 minutes).
   */
  humanInputTimeoutMs?: number;
  /**
   * The secret the package signs what clients hand back with (the `Mcp-Session-Id` of a client
   * that can be asked, the `requestState` of a run waiting for answers), at least 32 characters;
   * every instance of a farm must have the same. Default: a key per server derived from its code,
   * so that rotating the code voids them (docs/asking-a-person.md, "Signed state").
   */
  signingSecret?: string;
  /**
   * Largest result a task keeps, in bytes of JSON; a larger one fails the task with a message that
   * says so (docs/tasks.md). Default: 10485760 (10 MiB).
   */
  maxTaskResultBytes?: number;
  /** Longest a task is kept after its last change, in ms; a client's `ttl` is capped to it. Default: 86400000 (24 h). */
  maxTaskTtlMs?: number;
  /**
   * How long an instance holds a task it runs without renewing it, in ms: a task whose instance
   * stopped becomes `failed` within twice this (docs/tasks.md). Default: 30000.
   */
  taskLeaseMs?: number;
  /**
   * How many running tasks one caller may hold on one server, across a farm; past it a new task is
   * refused at once with a JSON-RPC error that names this limit (docs/tasks.md). `0`: no limit.
   * Default: 100.
   */
  maxActiveTasks?: number;
  /**
   * How many runs may wait for a person's answer at once on this instance; past it `run.ask`
   * rejects at once with `TooManyWaitingRuns` (docs/asking-a-person.md). `0`: no limit. Default: 10000.
   */
  maxWaitingRuns?: number;
  /**
   * Counting every `tools/call` per server, tool, caller and UTC hour into the store
   * (docs/usage.md): on whenever `mcpServer` knows a store (`store`, or the store whose
   * `store.resolver` made `resolveServer`); `false` turns it off; an object sets how the counts are
   * buffered. Daily call quotas do not depend on it. Default: `true`.
   */
  usage?: boolean | UsageOptions;
}

/** How usage counts are buffered before they are written (the `usage` option of `mcpServer`). */
export interface UsageOptions {
  /** The longest counts wait in memory before they are written, in ms; also what a crash may lose. Default: 5000. */
  flushMs?: number;
  /** The most distinct server, tool, caller and hour keys held in memory; reaching it writes them at once. Default: 10000. */
  maxKeys?: number;
}

/** The `auth` option of `mcpServer`; `verifyToken` gets the Express request. */
export type McpAuthOptions = AuthOptions<Request>;

const fn = <T>(name: string) => functionOption<T>(`${name} must be a function`);

/** How usage counts are buffered by default: written every 5 s, at most 10,000 keys held. */
const DEFAULT_USAGE = Object.freeze({ flushMs: 5000, maxKeys: 10_000 });

const OptionsSchema = z.strictObject({
  resolveServer: z.custom<ResolveServer>(
    (value) => typeof value === 'function' && !isResolverFactory(value),
    {
      // `store.resolver` takes the host's `loadApp` and makes the `resolveServer`; passed uncalled,
      // every request would call it with a server code and fail.
      error: (issue) =>
        isResolverFactory(issue.input)
          ? 'this is store.resolver itself: call it with your loadApp, resolveServer: store.resolver(loadApp)'
          : 'resolveServer must be a function',
    },
  ),
  runApp: fn<RunApp>('runApp'),
  serverInfo: z
    .strictObject({ name: z.string().min(1), version: z.string().min(1) })
    .default({ name: 'express-app-mcp', version: PACKAGE_VERSION }),
  toolName: fn<(app: HostApp) => string>('toolName').optional(),
  canUseTool: fn<CanUseTool>('canUseTool').optional(),
  allowedOrigins: AllowedOriginsSchema.default([]),
  allowedHosts: AllowedHostsSchema.default([]),
  maxBodyBytes: z.int().positive().default(DEFAULT_MAX_BODY_BYTES),
  // setTimeout cannot wait longer than 2^31-1 ms: a larger value would fire at once.
  callTimeoutMs: z.int().nonnegative().max(2_147_483_647).default(300_000),
  heartbeatMs: z.int().nonnegative().max(2_147_483_647).default(10_000),
  onError: fn<(error: unknown, context: ErrorContext) => void>('onError').default(defaultOnError),
  maxDataUrlBytes: z.int().positive().optional(),
  maxInlineResultBytes: z.int().positive().default(DEFAULT_MAX_INLINE_RESULT_BYTES),
  // JavaScript strings end at about 512 Mi code units, and a result is serialized again when written.
  maxResultBytes: z.int().positive().max(MAX_MAX_RESULT_BYTES).default(DEFAULT_MAX_RESULT_BYTES),
  store: z
    .custom<ServerStore>(
      (value) => typeof (value as Partial<ServerStore> | null)?.getServerByCode === 'function',
      {
        error: 'store must be a server store (knexServerStore or memoryServerStore)',
      },
    )
    .optional(),
  rateLimit: z
    .strictObject({ requests: z.int().positive(), windowMs: z.int().positive().max(2_147_483_647) })
    .optional(),
  resolveTimeoutMs: z.int().nonnegative().max(2_147_483_647).default(5000),
  streamRetentionMs: z.int().positive().default(300_000),
  streamWindowMs: z.int().nonnegative().max(2_147_483_647).default(0),
  streamLeaseMs: z.int().positive().max(2_147_483_647).default(15_000),
  onCall: fn<OnCall>('onCall').optional(),
  metrics: methodsOption<McpEventSink>(
    ['onEvent'],
    'metrics must be mcpMetrics() from express-app-mcp/metrics, or an object with onEvent(event)',
  ).optional(),
  humanInputTimeoutMs: z.int().positive().max(2_147_483_647).default(DEFAULT_HUMAN_INPUT_TIMEOUT_MS),
  signingSecret: z.string().min(32).optional(),
  maxTaskResultBytes: z.int().positive().default(DEFAULT_TASK_OPTIONS.maxResultBytes),
  maxTaskTtlMs: z.int().positive().default(DEFAULT_TASK_OPTIONS.maxTtlMs),
  taskLeaseMs: z.int().positive().max(2_147_483_647).default(DEFAULT_TASK_OPTIONS.leaseMs),
  maxActiveTasks: z.int().nonnegative().default(DEFAULT_TASK_OPTIONS.maxActive),
  maxWaitingRuns: z.int().nonnegative().default(DEFAULT_MAX_WAITING_RUNS),
  auth: AuthOptionsSchema.optional(),
  usage: z
    .union([
      z.boolean(),
      z.strictObject({
        flushMs: z.int().positive().max(2_147_483_647).default(DEFAULT_USAGE.flushMs),
        maxKeys: z.int().positive().default(DEFAULT_USAGE.maxKeys),
      }),
    ])
    .default(true)
    .transform((usage) => (usage === true ? DEFAULT_USAGE : usage)),
});

/** The options `mcpServer` accepts; `test/core/docs.options.test.ts` checks docs/options.md against it. */
export { OptionsSchema as McpServerOptionsSchema };

export type ParsedMcpServerOptions = z.infer<typeof OptionsSchema> & { maxDataUrlBytes: number };

/** `console.error`, with a repeated failure logged once per interval (each router has its own). */
function defaultOnError(): (error: unknown, context: ErrorContext) => void {
  const log = new ThrottledLog();
  return (error, context) => log.log(`express-app-mcp: internal failure during ${context.phase}`, error);
}

/**
 * Validates the options once, at factory time; an unknown or ill-typed option is a
 * `ConfigurationError` that names it. The caller's object is never mutated.
 */
export function parseMcpServerOptions(options: McpServerOptions): ParsedMcpServerOptions {
  const parsed = parseFactoryOptions(OptionsSchema, options, 'mcpServer');
  return { ...parsed, maxDataUrlBytes: dataUrlLimit(parsed.maxDataUrlBytes, parsed.maxBodyBytes) };
}

/** A data: URL travels inside the request body, so it can never be larger than the body. */
function dataUrlLimit(maxDataUrlBytes: number | undefined, maxBodyBytes: number): number {
  if (maxDataUrlBytes === undefined) return Math.min(DEFAULT_MAX_DATA_URL_BYTES, maxBodyBytes);
  if (maxDataUrlBytes > maxBodyBytes) {
    throw new ConfigurationError(
      'invalid_options',
      `mcpServer: invalid option "maxDataUrlBytes": must not be larger than maxBodyBytes (${maxBodyBytes})`,
    );
  }
  return maxDataUrlBytes;
}
