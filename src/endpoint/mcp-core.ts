import type { Request } from 'express';
import { StoreTimeout } from '../errors/unavailable.js';
import { safeHook } from '../express/hook.js';
import { type EmitEvent, eventEmitter } from '../observe/events.js';
import { createQuotaCheck } from '../protocol/quota.js';
import type { ErrorReporter } from '../protocol/report.js';
import { createProtocolCore, type ProtocolCore } from '../protocol/router.js';
import { StreamLeases } from '../protocol/stream/leases.js';
import type { Resumability } from '../protocol/stream/resumability.js';
import { resumedHeartbeats } from '../protocol/stream/resume.js';
import { createRateCheck } from '../store/farm/rate-limit.js';
import { storeOfResolver } from '../store/resolver.js';
import type { StreamEventStore } from '../store/stream-events.js';
import { memoryTaskStore } from '../store/tasks/memory-store.js';
import { UsageBuffer } from '../store/usage/buffer.js';
import { Deadlines } from '../util/deadlines.js';
import type { ParsedMcpServerOptions } from './mcp-server-options.js';

/**
 * The protocol core `mcpServer` serves, made from its parsed options, the hook it reports to and
 * the `metrics` sink's emitter (none without the option).
 */
export function createMcpCore(
  config: ParsedMcpServerOptions,
  seams: CoreSeams = {},
): {
  core: ProtocolCore<Request>;
  report: ErrorReporter;
  emit: EmitEvent | undefined;
  /** The usage counts waiting to be written; none when usage is not counted. */
  usage: UsageBuffer | undefined;
} {
  const report = safeHook(config.onError);
  const emit = eventEmitter(config.metrics, (error) => report(error, { phase: 'metrics' }));
  // The store that keeps usage and quotas: the one named, or the one whose resolver resolves.
  const counting = config.store ?? storeOfResolver(config.resolveServer);
  const usage =
    config.usage && counting?.usage
      ? new UsageBuffer(counting.usage, {
          ...config.usage,
          report: (error) => report(error, { phase: 'usage' }),
        })
      : undefined;
  const quota =
    counting?.usage && counting.dailyCallQuota
      ? createQuotaCheck({
          quotaOf: counting.dailyCallQuota,
          store: counting.usage,
          now: seams.now ?? Date.now,
          report,
        })
      : undefined;
  const core = createProtocolCore<Request>({
    runApp: config.runApp,
    serverInfo: config.serverInfo,
    toolName: config.toolName,
    ...(config.canUseTool && { canUseTool: config.canUseTool }),
    callTimeoutMs: config.callTimeoutMs,
    maxDataUrlBytes: config.maxDataUrlBytes,
    maxInlineResultBytes: config.maxInlineResultBytes,
    maxResultBytes: config.maxResultBytes,
    heartbeatMs: config.heartbeatMs,
    report,
    resolveTimeoutMs: config.resolveTimeoutMs,
    rateCheck:
      config.rateLimit &&
      createRateCheck(config.rateLimit, config.store?.farm, (error) => report(error, { phase: 'dispatch' })),
    farm: config.store?.farm,
    resumability: config.store?.streams && resumabilityOf(config.store.streams, config, report),
    onCall: config.onCall,
    emit,
    humanInputTimeoutMs: config.humanInputTimeoutMs,
    ...(config.maxWaitingRuns > 0 ? { maxWaitingRuns: config.maxWaitingRuns } : {}),
    ...(config.signingSecret === undefined ? {} : { signingSecret: config.signingSecret }),
    tasks: {
      // With a Knex store, tasks live in its database, shared by the instances; otherwise in this process.
      store: config.store?.tasks ?? memoryTaskStore(),
      leaseMs: config.taskLeaseMs,
      maxResultBytes: config.maxTaskResultBytes,
      maxTtlMs: config.maxTaskTtlMs,
      ...(config.maxActiveTasks > 0 ? { maxActive: config.maxActiveTasks } : {}),
    },
    ...(usage ? { usage } : {}),
    ...(quota ? { quota } : {}),
  });
  return { core, report, emit, usage };
}

/** What tests may replace in a core: the clock daily quotas read (epoch ms). */
export interface CoreSeams {
  now?: () => number;
}

/** How the router keeps streams for `GET` with `Last-Event-ID`, on the store's stream events. */
function resumabilityOf(
  store: StreamEventStore,
  config: ParsedMcpServerOptions,
  report: ErrorReporter,
): Resumability {
  const deadlines = new Deadlines(
    config.resolveTimeoutMs,
    () => new StoreTimeout('the stream events store', config.resolveTimeoutMs),
  );
  return {
    store,
    retentionMs: config.streamRetentionMs,
    windowMs: config.streamWindowMs,
    heartbeats: resumedHeartbeats(config.heartbeatMs),
    deadlines,
    leases: new StreamLeases(config.streamLeaseMs, store, deadlines, report),
    callTimeoutMs: config.callTimeoutMs,
  };
}
