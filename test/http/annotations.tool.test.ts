/**
 * Tool annotations on the wire: a server's hints appear on its tool from protocol 2025-03-26 on
 * (MCP 2025-03-26 added `ToolAnnotations`), in the 2026-07-28 era too, and never before; a server
 * without hints lists a tool without an `annotations` field in every version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostApp, ResolveServer, ServerRecord, ServerStore, ToolAnnotations } from '../../src/index.js';
import { PACKAGE_VERSION } from '../../src/versions.js';
import { type Host, type HostVariant, hostVariants, loadPackage, startHost } from '../helpers/hosts.js';
import { expectRpcReply, request, rpcResult } from '../helpers/rpc.js';

const TENANT = 'tenant-hints';
const MODERN = '2026-07-28';

const WORD_COUNT: HostApp = {
  id: 'word-count',
  name: 'Word Count',
  mode: 'workflow',
  description: 'Counts words',
  inputForm: [{ type: 'paragraph', variable: 'text', label: 'The text', required: true }],
  icon: 'https://example.com/words.png',
};

const HINTS: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** The tool as each revision lists it (README, "Protocol versions"), with or without `annotations`. */
function toolAt(version: string, annotations?: ToolAnnotations): Record<string, unknown> {
  const basic = {
    name: 'Word_Count',
    description: 'Counts words',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text' } },
      required: ['text'],
    },
  };
  const hints = annotations && version >= '2025-03-26' ? { annotations } : {};
  if (version < '2025-06-18') return { ...basic, ...hints };
  return {
    ...basic,
    title: 'Word Count',
    outputSchema: { type: 'object' },
    ...hints,
    ...(version >= '2025-11-25' && { icons: [{ src: WORD_COUNT.icon }] }),
    ...(version === '2025-11-25' && { execution: { taskSupport: 'optional' } }),
  };
}

/** `tools/list` as a client of that version sends it: the header on the legacy path, `_meta` and headers on the modern one. */
function listAt(host: Host, code: string, version: string) {
  if (version < MODERN) {
    return host.post(code, request(1, 'tools/list'), { 'mcp-protocol-version': version });
  }
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return host.post(code, request(1, 'tools/list', { _meta: meta }), {
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/list',
  });
}

/** The result a `tools/list` of that version answers with the one tool. */
function listed(version: string, tool: Record<string, unknown>) {
  if (version < MODERN) return rpcResult(1, { tools: [tool] });
  return rpcResult(1, {
    resultType: 'complete',
    tools: [tool],
    ttlMs: 60_000,
    cacheScope: 'private',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'express-app-mcp', version: PACKAGE_VERSION } },
  });
}

const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', MODERN];

describe('tool annotations, version by version', () => {
  const variant = hostVariants[0] as HostVariant;
  let store: ServerStore;
  let host: Host;
  let annotated: ServerRecord;
  let plain: ServerRecord;
  /** A hand-written resolver's record, with whatever its author put in `annotations`. */
  let handWritten: ServerRecord;

  beforeAll(async () => {
    const pkg = await loadPackage(variant.major);
    store = pkg.memoryServerStore();
    const publish = (appId: string, annotations?: ToolAnnotations) =>
      store.createServer({
        tenantId: TENANT,
        appId,
        name: 'Word Count',
        description: '',
        parameters: {},
        annotations,
      });
    annotated = await publish('annotated', HINTS);
    plain = await publish('plain');
    handWritten = {
      ...plain,
      id: 'hand-written',
      serverCode: 'HandWritten00000',
      annotations: {
        destructiveHint: 'yes',
        idempotentHint: true,
        title: 'Words',
      } as unknown as ToolAnnotations,
    };
    const fromStore = store.resolver(() => WORD_COUNT);
    const resolveServer: ResolveServer = async (code, req) =>
      code === handWritten.serverCode ? { server: handWritten, app: WORD_COUNT } : fromStore(code, req);
    host = await startHost(variant, pkg, { resolveServer, runApp: () => ({ outputs: {} }) });
  });
  afterAll(async () => {
    await host?.close();
  });

  it.each(VERSIONS)(
    'at %s an annotated server lists its hints from 2025-03-26 on, and only then',
    async (version) => {
      const reply = await listAt(host, annotated.serverCode, version);
      expectRpcReply(reply, 200, listed(version, toolAt(version, HINTS)));
      const [tool] = (reply.json as { result: { tools: Record<string, unknown>[] } }).result.tools;
      expect(Object.hasOwn(tool!, 'annotations')).toBe(version >= '2025-03-26');
    },
  );

  it.each(VERSIONS)('at %s a server without hints lists no annotations field', async (version) => {
    const reply = await listAt(host, plain.serverCode, version);
    expectRpcReply(reply, 200, listed(version, toolAt(version)));
    const [tool] = (reply.json as { result: { tools: Record<string, unknown>[] } }).result.tools;
    expect(Object.hasOwn(tool!, 'annotations')).toBe(false);
  });

  it('only the boolean hints of a hand-written record are shown', async () => {
    const reply = await listAt(host, handWritten.serverCode, '2025-06-18');
    expectRpcReply(reply, 200, listed('2025-06-18', toolAt('2025-06-18', { idempotentHint: true })));
  });

  it('a change of hints shows on the next list, and clearing them removes the field', async () => {
    const server = await store.createServer({
      tenantId: TENANT,
      appId: 'changing',
      name: 'Word Count',
      description: '',
      parameters: {},
      annotations: { readOnlyHint: true },
    });
    expectRpcReply(
      await listAt(host, server.serverCode, '2025-11-25'),
      200,
      listed('2025-11-25', toolAt('2025-11-25', { readOnlyHint: true })),
    );
    const hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    await store.updateServer(server.id, { annotations: hints });
    expectRpcReply(
      await listAt(host, server.serverCode, '2025-11-25'),
      200,
      listed('2025-11-25', toolAt('2025-11-25', hints)),
    );
    await store.updateServer(server.id, { annotations: {} });
    expectRpcReply(
      await listAt(host, server.serverCode, '2025-11-25'),
      200,
      listed('2025-11-25', toolAt('2025-11-25')),
    );
  });
});
