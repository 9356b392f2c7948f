/**
 * docs/http-contract.md, "The tool" (end user): every run is attributed to the server's end user, created lazily on the first
 * `initialize` or `tools/call` (never required in advance), named after the client, race-safe,
 * and handed to `runApp`. Driven over real HTTP against a host on 127.0.0.1 with the memory store
 * (the Knex store's own race-safety is covered by test/store.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryServerStore } from '../../src/store/memory.js';
import { storeResolver } from '../../src/store/resolver.js';
import type { ServerStore } from '../../src/store/types.js';
import type { EndUser, HostApp } from '../../src/types/index.js';
import { type DemoHost, faqBot, startDemoHost, textStats } from '../helpers/apps.js';
import { answeredInConversation } from '../helpers/conversations.js';

/** A memory store that records every end-user lookup, as a database would see them. */
function watchedStore() {
  const base = memoryServerStore();
  const lookups: { serverId: string; name: string }[] = [];
  const store: ServerStore = {
    ...base,
    getOrCreateEndUser(server, name) {
      lookups.push({ serverId: server.id, name });
      return base.getOrCreateEndUser(server, name);
    },
    resolver: (loadApp) => storeResolver(store, loadApp),
  };
  return { store, lookups };
}

let host: DemoHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

interface RpcReply {
  status: number;
  body: { jsonrpc: string; id: unknown; result?: Record<string, unknown>; error?: unknown };
}

async function post(
  app: HostApp,
  payload: unknown,
  headers: Record<string, string> = { 'mcp-protocol-version': '2025-11-25' },
): Promise<RpcReply> {
  const response = await fetch(host!.endpointOf(app), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as RpcReply['body'] };
}

const initialize = (id: number, clientInfo?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, ...(clientInfo ? { clientInfo } : {}) },
});

const callFaq = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'FAQ_Bot', arguments: { query: 'What are your hours?' } },
});

const HOURS = 'We are open Monday to Friday, 9:00 to 17:00.';
/** The FAQ Bot keeps conversations: each call without a conversation_id starts a new one. */
const answered = (id: number, answer = HOURS) => ({
  status: 200,
  body: { jsonrpc: '2.0', id, result: answeredInConversation(answer) },
});

/** The end user the store holds for the app's server now (asking creates none once one exists). */
const storedEndUser = (app: HostApp): Promise<EndUser> =>
  host!.store.getOrCreateEndUser(host!.servers[app.id]!, 'asked by the test');

describe('the end user', () => {
  it('is not needed in advance: a first tools/call on a fresh server runs, and creates it', async () => {
    const { store, lookups } = watchedStore();
    host = await startDemoHost({ apps: [faqBot], store });
    expect(lookups).toEqual([]);

    expect(await post(faqBot, callFaq(1))).toEqual(answered(1));
    const [run] = host.runs;
    expect(run?.endUser).toEqual({ id: expect.any(String), name: 'mcp-client' });
    expect(await storedEndUser(faqBot)).toEqual(run?.endUser);
  });

  it('initialize creates it, named clientInfo.name@clientInfo.version, and later runs get it', async () => {
    host = await startDemoHost({ apps: [faqBot] });
    const init = await post(faqBot, initialize(1, { name: 'claude-ai', version: '0.1.0' }));
    expect(init.status).toBe(200);
    expect(init.body.result?.protocolVersion).toBe('2025-11-25');
    const created = await storedEndUser(faqBot);
    expect(created).toEqual({ id: expect.any(String), name: 'claude-ai@0.1.0' });
    expect(host.runs).toEqual([]);

    expect(await post(faqBot, callFaq(2))).toEqual(answered(2));
    expect(await post(faqBot, callFaq(3))).toEqual(answered(3));
    expect(host.runs.map((run) => run.endUser)).toEqual([created, created]);
  });

  it('a client that gives only a name is named by it', async () => {
    host = await startDemoHost({ apps: [faqBot] });
    await post(faqBot, initialize(1, { name: 'inspector' }));
    expect((await storedEndUser(faqBot)).name).toBe('inspector');
  });

  it('a client that gives no clientInfo gets the default name', async () => {
    host = await startDemoHost({ apps: [faqBot] });
    await post(faqBot, initialize(1));
    expect((await storedEndUser(faqBot)).name).toBe('mcp-client');
  });

  it('the first request names it for good: a later initialize does not rename it', async () => {
    host = await startDemoHost({ apps: [faqBot] });
    await post(faqBot, initialize(1, { name: 'first-client', version: '1.0.0' }));
    await post(faqBot, initialize(2, { name: 'second-client', version: '2.0.0' }));
    await post(faqBot, callFaq(3));
    expect(host.runs[0]?.endUser.name).toBe('first-client@1.0.0');
  });

  it('listing tools and pinging create nothing', async () => {
    const { store, lookups } = watchedStore();
    host = await startDemoHost({ apps: [faqBot], store });
    const list = await post(faqBot, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const ping = await post(faqBot, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect([list.status, ping.status]).toEqual([200, 200]);
    expect(lookups).toEqual([]);
  });

  it('arguments that fail the form run nothing and need no end user', async () => {
    const { store, lookups } = watchedStore();
    host = await startDemoHost({ apps: [faqBot], store });
    const reply = await post(faqBot, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'FAQ_Bot', arguments: { tone: 'rude' } },
    });
    expect(reply).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          content: [
            {
              type: 'text',
              text: 'Invalid arguments for tool FAQ_Bot: query is required; tone must be one of plain, friendly',
            },
          ],
          isError: true,
        },
      },
    });
    expect(lookups).toEqual([]);
    expect(host.runs).toEqual([]);
  });

  it('concurrent first requests produce exactly one end user', async () => {
    const { store, lookups } = watchedStore();
    host = await startDemoHost({ apps: [faqBot], store });
    const replies = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => post(faqBot, callFaq(i + 1))),
      ...Array.from({ length: 4 }, (_, i) =>
        post(faqBot, initialize(100 + i, { name: 'racer', version: `${i}` })),
      ),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual(Array(16).fill(200));
    expect(lookups).toHaveLength(16);

    const ids = new Set(host.runs.map((run) => run.endUser.id));
    expect(host.runs).toHaveLength(12);
    expect(ids.size).toBe(1);
    expect(await storedEndUser(faqBot)).toEqual(host.runs[0]?.endUser);
  });

  it('each server has its own end user', async () => {
    host = await startDemoHost({ apps: [faqBot, textStats] });
    await post(faqBot, callFaq(1));
    await post(textStats, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'Text_Stats', arguments: { text: 'one two two' } },
    });
    const [faqRun, statsRun] = host.runs;
    expect(faqRun?.app.id).toBe('faq-bot');
    expect(statsRun?.app.id).toBe('text-stats');
    expect(faqRun?.endUser.id).not.toBe(statsRun?.endUser.id);
    expect(await storedEndUser(faqBot)).toEqual(faqRun?.endUser);
    expect(await storedEndUser(textStats)).toEqual(statsRun?.endUser);
  });

  it('a modern (2026-07-28) call names it from the clientInfo in _meta', async () => {
    host = await startDemoHost({ apps: [faqBot] });
    const reply = await post(
      faqBot,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'FAQ_Bot',
          arguments: { query: 'hours?' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'modern-client', version: '2.4.0' },
          },
        },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'FAQ_Bot' },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.result?.isError).toBe(false);
    expect(host.runs[0]?.endUser).toEqual({ id: expect.any(String), name: 'modern-client@2.4.0' });
  });
});
