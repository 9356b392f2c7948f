/**
 * docs/adapters.md, as a reader meets it: its runnable example (the first `js` block) is started as
 * written, with the built package, and its two apps are called with the official MCP client; the
 * sketch of "Writing an adapter" is run on a fake agent. Both run in child processes from the
 * repository's root, where `express-app-mcp` resolves to the built package by its name.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, buildPackage, connectClient, ROOT } from '../helpers/built.js';

const run = promisify(execFile);

/** The `js` code blocks of the guide, in order. */
async function codeBlocks(): Promise<string[]> {
  const guide = await readFile(join(ROOT, 'docs', 'adapters.md'), 'utf8');
  return [...guide.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

let example: ChildProcess | undefined;
/** Each app's MCP URL, as the example printed it. */
const urls = new Map<string, string>();

beforeAll(async () => {
  await buildPackage();
  const [runnable] = await codeBlocks();
  example = spawn(process.execPath, ['--input-type=module', '-e', runnable!], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: example.stdout! });
  for await (const line of lines) {
    const printed = /^(\w+): (http:\/\/\S+)$/.exec(line);
    if (printed) urls.set(printed[1]!, printed[2]!);
    if (urls.size === 2) break;
  }
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  example?.kill();
});

describe('docs/adapters.md', () => {
  it('the runnable example prints one MCP URL per app', () => {
    expect([...urls.keys()]).toEqual(['Assistant', 'Titler']);
  });

  it("the example's AI SDK app answers, with the tokens it used", async () => {
    const client = await connectClient(new URL(urls.get('Assistant')!));
    try {
      expect(await client.callTool({ name: 'Assistant', arguments: { query: 'Hi' } })).toEqual({
        content: [{ type: 'text', text: 'Hello from the AI SDK!' }],
        structuredContent: { answer: 'Hello from the AI SDK!' },
        isError: false,
        _meta: { usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 } },
      });
    } finally {
      await client.close();
    }
  });

  it("the example's LangGraph app reports its node and answers with its declared output", async () => {
    const client = await connectClient(new URL(urls.get('Titler')!));
    try {
      const progress: unknown[] = [];
      const result = await client.callTool({ name: 'Titler', arguments: { topic: 'tea' } }, undefined, {
        onprogress: (note) => progress.push(note),
      });
      expect({ result, progress }).toEqual({
        result: {
          content: [{ type: 'text', text: '{"title":"All about tea"}' }],
          structuredContent: { title: 'All about tea' },
          isError: false,
        },
        progress: [{ progress: 1, message: 'write' }],
      });
    } finally {
      await client.close();
    }
  });

  it('the sketch of "Writing an adapter" maps tokens, steps and a refusal', async () => {
    const sketch = (await codeBlocks()).find((block) => block.includes('export function fromMyAgents'));
    const harness = `
const agent = { async *stream() { yield { type: 'step', name: 'plan' }; yield { type: 'token', text: 'Hel' }; yield { type: 'token', text: 'lo' }; } };
const refusing = { async *stream() { yield { type: 'refusal', reason: 'that is not allowed' }; } };
async function collect(runApp) {
  const events = [];
  try {
    for await (const event of runApp({ query: 'Hi', inputs: {}, signal: new AbortController().signal })) events.push(event);
  } catch (error) {
    events.push({ thrown: error.name, message: error.message });
  }
  return events;
}
console.log(JSON.stringify([await collect(fromMyAgents(agent)), await collect(fromMyAgents(refusing))]));
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', `${sketch}\n${harness}`], {
      cwd: ROOT,
    });
    expect(JSON.parse(stdout)).toEqual([
      [
        { event: 'progress', progress: 1, message: 'plan' },
        { event: 'message', answer: 'Hel' },
        { event: 'message', answer: 'lo' },
      ],
      [{ thrown: 'AppRunError', message: 'that is not allowed' }],
    ]);
  });
});
