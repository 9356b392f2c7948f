import type { Request } from 'express';
import { safeHook } from '../express/hook.js';
import type { ErrorReporter } from '../protocol/report.js';
import { createProtocolCore, type ProtocolCore } from '../protocol/router.js';
import { resumedHeartbeats } from '../protocol/stream/resume.js';
import { createRateCheck } from '../store/farm/rate-limit.js';
import { memoryTaskStore } from '../store/tasks/memory-store.js';
import type { ParsedMcpServerOptions } from './mcp-server-options.js';

/** The protocol core `mcpServer` serves, made from its parsed options, and the hook it reports to. */
export function createMcpCore(config: ParsedMcpServerOptions): {
  core: ProtocolCore<Request>;
  report: ErrorReporter;
} {
  const report = safeHook(config.onError);
  const core = createProtocolCore<Request>({
    runApp: config.runApp,
    serverInfo: config.serverInfo,
    toolName: config.toolName,
    callTimeoutMs: config.callTimeoutMs,
    maxDataUrlBytes: config.maxDataUrlBytes,
    maxInlineResultBytes: config.maxInlineResultBytes,
    heartbeatMs: config.heartbeatMs,
    report,
    resolveTimeoutMs: config.resolveTimeoutMs,
    rateCheck:
      config.rateLimit &&
      createRateCheck(config.rateLimit, config.store?.farm, (error) => report(error, { phase: 'dispatch' })),
    farm: config.store?.farm,
    resumability: config.store?.streams && {
      store: config.store.streams,
      retentionMs: config.streamRetentionMs,
      windowMs: config.streamWindowMs,
      heartbeats: resumedHeartbeats(config.heartbeatMs),
    },
    onCall: config.onCall,
    tasks: {
      // With a Knex store, tasks live in its database, shared by the instances; otherwise in this process.
      store: config.store?.tasks ?? memoryTaskStore(),
      leaseMs: config.taskLeaseMs,
      maxResultBytes: config.maxTaskResultBytes,
      maxTtlMs: config.maxTaskTtlMs,
    },
  });
  return { core, report };
}
