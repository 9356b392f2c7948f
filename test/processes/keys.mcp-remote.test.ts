/**
 * `mcp-remote` (what Claude Desktop spawns) with `--header "Authorization: Bearer <key>"` against
 * a `"key"` server's path URL (docs/keys.md, "Clients"): the snippet the console page shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHost, ECHO_APP, startEchoHost } from '../helpers/apps.js';
import { mcpRemote } from '../helpers/processes.js';

let apps: DemoHost;
let home: string;
let url: string;
let secret: string;
beforeAll(async () => {
  apps = await startEchoHost([ECHO_APP]);
  await apps.store.updateServer(apps.servers.echo!.id, { authMode: 'key' });
  ({ secret } = await apps.store.keys!.create(apps.servers.echo!.id, { name: 'desktop' }));
  home = await mkdtemp(join(tmpdir(), 'keys-mcp-remote-'));
  url = `http://localhost:${apps.host.port}/mcp/server/${apps.codes.echo}/mcp`;
});
afterAll(async () => {
  await apps.close();
  await rm(home, { recursive: true, force: true });
});

describe('mcp-remote with a caller key', () => {
  it('calls the tool with --header "Authorization: Bearer <key>", as the key', {
    timeout: 120_000,
  }, async () => {
    // As the page's Claude Desktop snippet: the header without a space, the key in the environment.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands `${MCP_KEY}` itself.
    const remote = mcpRemote(home, url, ['--header', 'Authorization:${MCP_KEY}'], {
      MCP_KEY: `Bearer ${secret}`,
    });
    try {
      expect(await remote.handshake()).toBe('2025-06-18');
      const text = JSON.stringify({ query: '', inputs: { text: 'hi' } });
      expect(await remote.request(2, 'tools/call', { name: 'Echo', arguments: { text: 'hi' } })).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: { content: [{ type: 'text', text }], structuredContent: { answer: text }, isError: false },
      });
      expect(apps.runs.at(-1)?.caller).toMatchObject({ kind: 'key', name: 'desktop' });
    } finally {
      await remote.stop();
    }
  });
});
