/**
 * Every command the product prints or shows runs as printed, on Node.js 20 and 22 (docs/clients.md):
 * the console page's snippets (`src/console/page/assets/snippets.js`), the example app's start
 * output and the guides name the Inspector at the version this repository pins and tests
 * (`scripts/tools.mjs`), with `npx -y`; and the page's Inspector commands, the code in the URL and
 * in a header, list the tool of a live host with this Node and with Node 22.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoHost, ECHO_APP, startEchoHost } from '../helpers/apps.js';
import {
  inspectorCommands,
  PINNED_INSPECTOR,
  runPrintedInspector,
  shellWords,
} from '../helpers/printed-commands.js';
import { NODE_22, ROOT, stopAll } from '../helpers/processes.js';

interface Snippet {
  id: string;
  label: string;
  hint: string;
  text: string;
}
type SnippetsModule = {
  INSPECTOR: string;
  snippetsFor(server: { appId: string; url: string; code: string }): Snippet[];
};
const SNIPPETS = join(ROOT, 'src', 'console', 'page', 'assets', 'snippets.js');
const snippets = (await import(SNIPPETS)) as SnippetsModule;

/** The files whose commands a reader copies: the README, the guides, the example app. */
function printedSources(): { file: string; text: string }[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
    ...readdirSync(join(ROOT, 'example-app'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => `example-app/${name}`),
    'src/console/page/assets/snippets.js',
  ];
  return files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
}

describe('the commands the product prints', () => {
  it('name the Inspector at the pinned version, with npx -y, everywhere', () => {
    expect(snippets.INSPECTOR).toBe(PINNED_INSPECTOR);
    expect(readFileSync(join(ROOT, 'example-app', 'server.js'), 'utf8')).toContain(
      `const INSPECTOR = '${PINNED_INSPECTOR}';`,
    );
    const wrong: string[] = [];
    let seen = 0;
    for (const { file, text } of printedSources()) {
      for (const line of text.split('\n')) {
        // A template literal of the example app or the page names the version through a constant.
        const pinned = line.replace(/\$\{INSPECTOR\}/g, PINNED_INSPECTOR);
        if (!/npx\b.*@modelcontextprotocol\/inspector/.test(pinned)) continue;
        seen++;
        if (!pinned.includes(`npx -y ${PINNED_INSPECTOR} `)) wrong.push(`${file}: ${line.trim()}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(seen).toBeGreaterThan(5);
  });

  it('start every npx of the page with -y, so that none stops at a prompt', () => {
    const shown = snippets.snippetsFor({
      appId: 'echo',
      url: 'http://localhost:3000/mcp/server/ABCDEFGHIJKLMNOP/mcp',
      code: 'ABCDEFGHIJKLMNOP',
    });
    expect(shown.map((snippet) => snippet.label)).toEqual([
      'Claude Desktop',
      'Claude Code',
      'Cursor',
      'VS Code',
      'Inspector',
      'Code in header',
    ]);
    const text = shown.map((snippet) => snippet.text).join('\n');
    for (const match of text.matchAll(/"command": "npx", "args": \[("[^"]*")/g))
      expect(match[1]).toBe('"-y"');
    for (const match of text.matchAll(/\bnpx (\S+)/g)) {
      if (match[1] !== '",') expect(match[1]).toBe('-y');
    }
  });
});

describe('the page’s Inspector commands against a live host', () => {
  let apps: DemoHost;
  let home: string;
  let shown: Snippet[];
  beforeAll(async () => {
    apps = await startEchoHost([ECHO_APP]);
    home = await mkdtemp(join(tmpdir(), 'printed-commands-'));
    const url = `http://localhost:${apps.host.port}/mcp/server/${apps.codes.echo}/mcp`;
    shown = snippets.snippetsFor({ appId: 'echo', url, code: apps.codes.echo! });
  });
  afterAll(async () => {
    await stopAll();
    await apps.close();
    await rm(home, { recursive: true, force: true });
  });

  const commandsOf = (label: string) =>
    inspectorCommands(shown.find((snippet) => snippet.label === label)!.text);

  it.each([
    ['this Node', process.execPath],
    ['Node 22', NODE_22],
  ])('run as printed with %s: the code in the URL and in a header', { timeout: 120_000 }, async (_, node) => {
    const commands = [...commandsOf('Inspector'), ...commandsOf('Code in header')];
    expect(commands).toHaveLength(2);
    expect(shellWords(commands[1]!)).toContain(`Authorization: Bearer ${apps.codes.echo}`);
    const runs = await Promise.all(commands.map((command) => runPrintedInspector(command, node, home)));
    for (const run of runs) {
      expect(run.code, run.output).toBe(0);
      expect(JSON.parse(run.stdout).tools.map((tool: { name: string }) => tool.name)).toEqual(['Echo']);
    }
  });
});
