/**
 * `express-app-mcp/metrics`: Prometheus metrics of the MCP endpoint, on `prom-client` (an optional
 * peer dependency, loaded by this entry only: the package's main entry never loads it).
 *
 * Only public exports of the package are imported here, so that the CommonJS build of this entry
 * takes them from the main CommonJS build rather than from a second copy (scripts/build.mjs).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ConfigurationError } from '../errors/package-errors.js';
import type { McpEvent, McpEventSink, TaskStatus } from '../observe/events.js';
import { METRICS_OPTIONS } from './option-names.js';

export type { McpEvent, McpEventSink, TaskStatus } from '../observe/events.js';

/** Options of `mcpMetrics`. */
export interface McpMetricsOptions {
  /**
   * Where the metrics are registered. Default: a new registry of their own, which `handler` serves.
   * Give prom-client's global `register` to serve them with the host's other metrics.
   */
  registry?: Registry;
  /** Prepended to every metric's name. Default `''`. */
  prefix?: string;
  /**
   * The `server` label of `mcp_tool_calls_total`: the server's id (never its code, which is a
   * secret). `false` leaves it out, for hosts with so many servers that one series each is too many.
   * Default `true`.
   */
  serverLabel?: boolean;
  /**
   * The buckets of `mcp_tool_call_duration_seconds`, in seconds. Default: 0.05 s to 10 minutes,
   * since runs last from a fraction of a second to minutes.
   */
  durationBuckets?: number[];
}

/** What `mcpMetrics` returns: the `metrics` option of `mcpServer`, and the handler that serves them. */
export interface McpMetrics extends McpEventSink {
  /** The registry the metrics are in. */
  readonly registry: Registry;
  /** Answers a scrape with every metric of `registry`: `app.get('/metrics', metrics.handler)`. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
}

const DEFAULT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const TASK_STATUSES: readonly TaskStatus[] = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
];

/**
 * Prometheus metrics of the calls, streams, waits and tasks of an `mcpServer`, mounted in two lines:
 *
 * @example
 * ```ts
 * import { mcpMetrics } from 'express-app-mcp/metrics';
 *
 * const metrics = mcpMetrics();
 * app.use(mcpServer({ resolveServer, runApp, metrics }));
 * app.get('/metrics', metrics.handler);
 * ```
 *
 * - `mcp_tool_calls_total{server,outcome}`: finished `tools/call`s; `outcome` as `onCall` has it;
 * - `mcp_tool_call_duration_seconds`: their durations (a histogram);
 * - `mcp_tool_calls_in_flight`: calls started and not finished;
 * - `mcp_streams_open`: event streams being written (streamed replies, resumed streams);
 * - `mcp_runs_waiting_for_input`: runs waiting for a person's answer (`run.ask`);
 * - `mcp_tasks{status}`: tasks by status, as this instance changed them (in a farm, sum them).
 *
 * Gauges count what this process sees; one `mcpMetrics()` may serve several routers.
 */
export function mcpMetrics(options: McpMetricsOptions = {}): McpMetrics {
  const { registry = new Registry(), prefix = '', serverLabel = true, durationBuckets } = checked(options);
  const registers = [registry];
  const calls = new Counter({
    name: `${prefix}mcp_tool_calls_total`,
    help: 'Finished MCP tools/call requests, by server id and outcome.',
    labelNames: serverLabel ? ['server', 'outcome'] : ['outcome'],
    registers,
  });
  const durations = new Histogram({
    name: `${prefix}mcp_tool_call_duration_seconds`,
    help: 'Duration of MCP tools/call requests, from the call to its result, in seconds.',
    buckets: durationBuckets ?? DEFAULT_BUCKETS,
    registers,
  });
  const gauge = (name: string, help: string) => new Gauge({ name: `${prefix}${name}`, help, registers });
  const inFlight = gauge('mcp_tool_calls_in_flight', 'MCP tools/call requests started and not finished.');
  const streams = gauge('mcp_streams_open', 'Server-sent event streams being written by the MCP endpoint.');
  const waiting = gauge('mcp_runs_waiting_for_input', "Runs waiting for a person's answer.");
  const tasks = new Gauge({
    name: `${prefix}mcp_tasks`,
    help: 'MCP tasks by status, as this instance changed them.',
    labelNames: ['status'] as const,
    registers,
  });
  for (const status of TASK_STATUSES) tasks.set({ status }, 0);

  function onEvent(event: McpEvent): void {
    switch (event.type) {
      case 'call.started':
        inFlight.inc();
        return;
      case 'call.finished':
        inFlight.dec();
        calls.inc(
          serverLabel ? { server: event.serverId, outcome: event.outcome } : { outcome: event.outcome },
        );
        durations.observe(event.durationMs / 1000);
        return;
      case 'stream.opened':
        streams.inc();
        return;
      case 'stream.closed':
        streams.dec();
        return;
      case 'input.waiting':
        waiting.inc();
        return;
      case 'input.settled':
        waiting.dec();
        return;
      case 'task.status':
        if (event.from !== null) tasks.dec({ status: event.from });
        if (event.to !== null) tasks.inc({ status: event.to });
        return;
    }
  }

  const handler = (_req: IncomingMessage, res: ServerResponse): void => {
    registry.metrics().then(
      (text) => {
        res.statusCode = 200;
        res.setHeader('Content-Type', registry.contentType);
        res.end(text);
      },
      () => {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.end('the metrics could not be collected\n');
      },
    );
  };

  return { registry, handler, onEvent };
}

/** Unknown options and ill-typed ones are a `ConfigurationError` naming them, as for every factory. */
function checked(options: McpMetricsOptions): McpMetricsOptions {
  const fail = (problem: string) => {
    throw new ConfigurationError('invalid_options', `mcpMetrics: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail('the options must be an object');
  for (const key of Object.keys(options)) if (!METRICS_OPTIONS.includes(key)) fail(`unknown option "${key}"`);
  const { registry, prefix, serverLabel, durationBuckets } = options;
  // By shape rather than `instanceof`: the host's registry may come from another copy of prom-client.
  if (
    registry !== undefined &&
    typeof (registry as Partial<Registry> | null)?.registerMetric !== 'function'
  ) {
    fail('invalid option "registry": must be a prom-client Registry');
  }
  if (prefix !== undefined && !/^[a-zA-Z_:][a-zA-Z0-9_:]*$|^$/.test(prefix)) {
    fail('invalid option "prefix": must be letters, digits, "_" or ":", not starting with a digit');
  }
  if (serverLabel !== undefined && typeof serverLabel !== 'boolean') {
    fail('invalid option "serverLabel": must be a boolean');
  }
  if (
    durationBuckets !== undefined &&
    (!Array.isArray(durationBuckets) ||
      durationBuckets.length === 0 ||
      durationBuckets.some((bucket, i) => !(bucket > 0) || (i > 0 && bucket <= durationBuckets[i - 1]!)))
  ) {
    fail('invalid option "durationBuckets": must be increasing positive numbers of seconds');
  }
  return options;
}
