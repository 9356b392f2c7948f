/**
 * The README's recipes for the code in a header, run for real: the MCP Inspector CLI with
 * `--header "Authorization: Bearer <code>"`, and `mcp-remote` with `--header`, as Claude Desktop
 * spawns it, against `POST /mcp/server/mcp`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHost, ECHO_APP, startEchoHost } from '../helpers/apps.js';
import { inspector, mcpRemote } from '../helpers/processes.js';

let apps: DemoHost;
let home: string;
let url: string;
let header: string;
beforeAll(async () => {
  apps = await startEchoHost([ECHO_APP]);
  home = await mkdtemp(join(tmpdir(), 'bearer-clients-'));
  url = `http://localhost:${apps.host.port}/mcp/server/mcp`;
  header = `Authorization: Bearer ${apps.codes.echo}`;
});
afterAll(async () => {
  await apps.close();
  await rm(home, { recursive: true, force: true });
});

const echoed = (text: string) => ({
  content: [{ type: 'text', text: JSON.stringify({ query: '', inputs: { text } }) }],
  structuredContent: { answer: JSON.stringify({ query: '', inputs: { text } }) },
  isError: false,
});

describe('clients that send the code as a bearer header', () => {
  it('the MCP Inspector CLI with --header', { timeout: 120_000 }, async () => {
    const run = await inspector(
      home,
      url,
      '--header',
      header,
      '--method',
      'tools/call',
      '--tool-name',
      'Echo',
      '--tool-arg',
      'text=hello',
    );
    expect(run.code, run.output).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(echoed('hello'));
  });

  it('mcp-remote with --header, spawned as Claude Desktop spawns it', { timeout: 120_000 }, async () => {
    // As the README's Claude Desktop config: the header without a space, the code in the environment.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands `${MCP_AUTH}` itself.
    const remote = mcpRemote(home, url, ['--header', 'Authorization:${MCP_AUTH}'], {
      MCP_AUTH: `Bearer ${apps.codes.echo}`,
    });
    try {
      expect(await remote.handshake()).toBe('2025-06-18');
      expect(await remote.request(2, 'tools/call', { name: 'Echo', arguments: { text: 'hi' } })).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: echoed('hi'),
      });
    } finally {
      await remote.stop();
    }
  });
});
