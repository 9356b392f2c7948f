/**
 * A server as a list of tools (docs/toolsets.md), driven without HTTP on the memory store:
 * `canUseTool` hiding a tool from `tools/list` and from `tools/call` alike, on a toolset and on a
 * one-app server; members left out when their app is gone or unavailable; `run.server.kind`.
 */
import { describe, expect, it } from 'vitest';
import {
  type AppRun,
  type CanUseTool,
  type HostApp,
  memoryServerStore,
  type ToolUse,
} from '../../src/index.js';
import { coreClient } from '../helpers/core.js';
import { request } from '../helpers/rpc.js';

const TENANT = 'tenant-toolsets';
const app = (id: string, name: string, extra: Partial<HostApp> = {}): HostApp => ({
  id,
  name,
  mode: 'workflow',
  description: `${name}, a demo`,
  inputForm: [{ type: 'text-input', variable: 'text', label: 'Text', required: true }],
  ...extra,
});
const TITLE = app('title-case', 'Title Case');
const STATS = app('text-stats', 'Text Stats');
const SECRET = app('payroll', 'Payroll');
const HEADERS = { 'mcp-protocol-version': '2025-06-18' };

async function world(canUseTool?: CanUseTool, apps: HostApp[] = [TITLE, STATS, SECRET]) {
  const store = memoryServerStore();
  const known = new Map(apps.map((each) => [each.id, each]));
  const servers: Record<string, string> = {};
  for (const each of apps) {
    const server = await store.createServer({
      tenantId: TENANT,
      appId: each.id,
      name: each.name,
      description: '',
      parameters: {},
    });
    servers[each.id] = server.serverCode;
  }
  const toolset = await store.toolsets!.create({
    tenantId: TENANT,
    name: 'Office tools',
    description: '',
    allPublished: false,
    members: apps.map((each) => ({ appId: each.id })),
  });
  const runs: AppRun[] = [];
  const uses: ToolUse[] = [];
  const reports: unknown[] = [];
  const core = coreClient({
    onError: (error) => reports.push(error),
    resolveServer: store.resolver((appId) => known.get(appId) ?? null, { appCacheTtlMs: 0 }),
    runApp: (run) => {
      runs.push(run);
      return { outputs: { ran: run.app.id } };
    },
    ...(canUseTool && {
      canUseTool: (use: ToolUse) => {
        uses.push(use);
        return canUseTool(use);
      },
    }),
  });
  const list = async (code: string) => {
    const reply = await core.post(code, request(1, 'tools/list'), HEADERS);
    expect(reply.status).toBe(200);
    return (reply.json as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
  };
  const call = (code: string, name: string) =>
    core.post(code, request(2, 'tools/call', { name, arguments: { text: 'x' } }), HEADERS);
  return { store, known, servers, toolset, runs, uses, reports, list, call };
}

const unknownTool = (name: string) => ({
  jsonrpc: '2.0',
  id: 2,
  error: { code: -32602, message: `Unknown tool: ${name}` },
});

describe('canUseTool', () => {
  const noPayroll: CanUseTool = ({ app }) => app.id !== SECRET.id;

  it('a tool the caller may not use is absent from a toolset’s list, and calling it answers as an unknown tool', async () => {
    const w = await world(noPayroll);
    expect(await w.list(w.toolset.serverCode)).toEqual(['Title_Case', 'Text_Stats']);
    const refused = await w.call(w.toolset.serverCode, 'Payroll');
    expect(refused.status).toBe(200);
    expect(refused.json).toEqual(unknownTool('Payroll'));
    expect(await w.call(w.toolset.serverCode, 'Never_Served')).toMatchObject({
      json: unknownTool('Never_Served'),
    });
    const allowed = await w.call(w.toolset.serverCode, 'Text_Stats');
    expect(allowed.json).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        content: [{ type: 'text', text: '{"ran":"text-stats"}' }],
        structuredContent: { ran: 'text-stats' },
        isError: false,
      },
    });
    expect(w.runs.map((run) => run.app.id)).toEqual(['text-stats']);
    expect(w.uses[0]).toEqual({
      server: expect.objectContaining({ kind: 'toolset' }),
      app: TITLE,
      caller: { kind: 'code' },
    });
  });

  it('on a one-app server the same: an empty list, and its one tool is unknown', async () => {
    const w = await world(noPayroll);
    const code = w.servers[SECRET.id] as string;
    expect(await w.list(code)).toEqual([]);
    expect((await w.call(code, 'Payroll')).json).toEqual(unknownTool('Payroll'));
    expect(await w.list(w.servers[TITLE.id] as string)).toEqual(['Title_Case']);
    expect(w.runs).toEqual([]);
  });

  it('an async answer counts the same, and a hook that throws answers an opaque internal error', async () => {
    const w = await world(async ({ app }) => app.id === TITLE.id);
    expect(await w.list(w.toolset.serverCode)).toEqual(['Title_Case']);
    const failing = await world(() => {
      throw new Error('the permissions service is down');
    });
    const reply = await failing.call(failing.toolset.serverCode, 'Title_Case');
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } });
    expect(failing.reports).toEqual([new Error('the permissions service is down')]);
  });
});

describe('a toolset’s members', () => {
  it('runs see the toolset as run.server (kind toolset) and the member as run.app; a one-app server’s runs see kind app', async () => {
    const w = await world();
    await w.call(w.toolset.serverCode, 'Title_Case');
    await w.call(w.servers[STATS.id] as string, 'Text_Stats');
    expect(w.runs.map((run) => [run.server.kind, run.server.name, run.app.id])).toEqual([
      ['toolset', 'Office tools', 'title-case'],
      ['app', 'Text Stats', 'text-stats'],
    ]);
  });

  it('a member whose app is gone or unavailable is left out; the others keep their names and work', async () => {
    const w = await world(undefined, [TITLE, app('stats-1', 'Stats'), app('stats-2', 'Stats')]);
    expect(await w.list(w.toolset.serverCode)).toEqual(['Title_Case', 'Stats', 'Stats_2']);
    w.known.set('stats-1', app('stats-1', 'Stats', { available: false }));
    w.known.delete(TITLE.id);
    expect(await w.list(w.toolset.serverCode)).toEqual(['Stats_2']);
    expect((await w.call(w.toolset.serverCode, 'Stats_2')).json).toMatchObject({
      result: { isError: false },
    });
    expect((await w.call(w.toolset.serverCode, 'Stats')).json).toEqual(unknownTool('Stats'));
  });

  it('an edit of the toolset is served on the next request', async () => {
    const w = await world();
    const first = await w.list(w.toolset.serverCode);
    expect(await w.list(w.toolset.serverCode)).toEqual(first);
    await w.store.toolsets!.update(w.toolset.id, { members: [{ appId: STATS.id, toolName: 'stats' }] });
    expect(await w.list(w.toolset.serverCode)).toEqual(['stats']);
  });
});
