/**
 * A world for the usage, quota and audit suites: an Echo app that answers, fails or asks a person
 * as its input says, published on a `"code"` server and an `"oauth"` one, and the protocol core
 * over a store with its usage buffer, driven without HTTP (`helpers/core.ts` does the same for
 * the other suites) so that a test can name the caller and the clock.
 */
import { createMcpCore } from '../../src/endpoint/mcp-core.js';
import { type McpServerOptions, parseMcpServerOptions } from '../../src/endpoint/mcp-server-options.js';
import { AppRunError } from '../../src/index.js';
import type { ServerStore } from '../../src/store/types.js';
import type { UsageBuffer } from '../../src/store/usage/buffer.js';
import type { AppResult, AppRun, AuthInfo, HostApp, ServerRecord } from '../../src/types/index.js';
import { asReply, NO_HTTP_REQUEST } from './core.js';
import type { Headers, Reply } from './hosts.js';
import { envelope, standardHeaders } from './modern.js';
import { request } from './rpc.js';

export const USAGE_TENANT = 'tenant-usage';

/** `text: 'fail'` fails the run (an error result), `text: 'ask'` asks for a name; anything else is echoed. */
export const ECHO_APP: HostApp = {
  id: 'echo',
  name: 'Echo',
  mode: 'workflow',
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text', required: true }],
};

/** A second tool, to count per tool. */
export const SHOUT_APP: HostApp = {
  id: 'shout',
  name: 'Shout',
  mode: 'workflow',
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text', required: true }],
};

const APPS = [ECHO_APP, SHOUT_APP];

export const loadUsageApp = async (appId: string, tenantId: string) =>
  tenantId === USAGE_TENANT ? (APPS.find((app) => app.id === appId) ?? null) : null;

export async function runUsageApp(run: AppRun): Promise<AppResult> {
  const text = String(run.inputs.text);
  if (text === 'fail') throw new AppRunError('asked to fail');
  if (text === 'ask') {
    const answer = await run.ask({
      message: 'Your name?',
      fields: [{ type: 'text-input', variable: 'name', required: true }],
    });
    return { outputs: { text: answer.action === 'accept' ? String(answer.values.name) : 'no name' } };
  }
  return { outputs: { text: run.app.id === SHOUT_APP.id ? text.toUpperCase() : text } };
}

export interface UsageServers {
  echo: ServerRecord;
  shout: ServerRecord;
  /** Echo's server is `"code"`; this one, for Shout, is `"oauth"` (its callers are subjects). */
}

/** Publishes Echo (`"code"`) and Shout (`"oauth"`) in `store`. */
export async function publishUsageServers(store: ServerStore): Promise<UsageServers> {
  const publish = (app: HostApp, authMode: 'code' | 'oauth') =>
    store.createServer({
      tenantId: USAGE_TENANT,
      appId: app.id,
      name: app.name,
      description: '',
      parameters: {},
      authMode,
    });
  return { echo: await publish(ECHO_APP, 'code'), shout: await publish(SHOUT_APP, 'oauth') };
}

/** A core over `store` with usage counted; `now` is the clock daily quotas read. */
export function usageCore(
  store: ServerStore,
  options: Partial<McpServerOptions> = {},
  now?: () => number,
): {
  /** Posts `payload` for `code`, as `subject` when given (an `"oauth"` caller). */
  post(code: string, payload: unknown, headers?: Headers, subject?: string): Promise<Reply>;
  usage: UsageBuffer;
  reports: unknown[];
} {
  const reports: unknown[] = [];
  const config = parseMcpServerOptions({
    resolveServer: store.resolver(loadUsageApp),
    runApp: runUsageApp,
    onError: (error) => reports.push(error),
    ...options,
  });
  const { core, usage } = createMcpCore(config, now ? { now } : {});
  if (!usage) throw new Error('usage is not counted by this core');
  const post = async (code: string, payload: unknown, headers: Headers = {}, subject?: string) => {
    const header = (name: string) => headers[name];
    const auth: AuthInfo | undefined =
      subject === undefined ? undefined : { subject, tenantId: USAGE_TENANT, scopes: [] };
    const reply = await core({
      payload,
      headers: {
        protocolVersion: header('mcp-protocol-version'),
        method: header('mcp-method'),
        name: header('mcp-name'),
      },
      resolve: (options) => config.resolveServer(code, NO_HTTP_REQUEST, options),
      ...(auth ? { authenticate: async () => auth } : {}),
      onClosed: () => () => {},
      request: NO_HTTP_REQUEST,
    });
    const shaped = asReply(reply);
    // The headers the core adds (`Retry-After`), as the Express layer writes them.
    const extra = reply.kind === 'json' ? (reply.headers ?? {}) : {};
    for (const [name, value] of Object.entries(extra)) shaped.headers[name.toLowerCase()] = value;
    return shaped;
  };
  return { post, usage, reports };
}

/** A 2025-06-18 `tools/call` of `tool` with `text`. */
export const legacyCall = (id: number, tool: string, text: string, extra: Record<string, unknown> = {}) =>
  request(id, 'tools/call', { name: tool, arguments: { text }, ...extra });

export const LEGACY_HEADERS: Headers = { 'mcp-protocol-version': '2025-11-25' };

/** A 2026-07-28 `tools/call` of `tool` with `text`, from a client that can be asked. */
export function modernCall(id: number, tool: string, text: string, extra: Record<string, unknown> = {}) {
  const meta = envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } });
  return {
    payload: request(id, 'tools/call', { name: tool, arguments: { text }, _meta: meta, ...extra }),
    headers: standardHeaders('tools/call', tool),
  };
}
