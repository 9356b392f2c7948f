/**
 * The frameworks are optional peers: the package's main entry never loads `ai`, `@langchain/core`
 * or `@langchain/langgraph`, from the ES module build or the CommonJS one. Each check imports the
 * built package by its name, in a child process, and lists the modules that process loaded: the
 * CommonJS `require.cache`, and for ES modules every URL a resolve hook saw.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, buildPackage, ROOT } from '../helpers/built.js';

const run = promisify(execFile);
const FRAMEWORK = /\/node_modules\/(ai|@langchain\/[^/]+)\//;

/** The frameworks among loaded module paths or URLs: `ai`, `@langchain/core`… */
const frameworksIn = (loaded: string[]): string[] =>
  [...new Set(loaded.flatMap((entry) => FRAMEWORK.exec(entry)?.[1] ?? []))].sort();

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'express-app-mcp-peers-'));
  // Records every URL the ES module loader resolves, one a line, in the file it is given.
  await writeFile(
    join(work, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`,
  );
  await buildPackage();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The frameworks `require(specifier)` loads, from a script in the repository (the package resolves itself by name). */
async function requiredBy(specifier: string): Promise<string[]> {
  const script = `require(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: ROOT });
  return frameworksIn(JSON.parse(stdout));
}

/** The frameworks `import(specifier)` loads. */
async function importedBy(specifier: string): Promise<string[]> {
  const log = join(work, `${specifier.replace(/\W/g, '_')}.log`);
  await writeFile(log, '');
  const register = `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)}, { data: { log: ${JSON.stringify(log)} } });`;
  await writeFile(join(work, 'register.mjs'), register);
  await run(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(work, 'register.mjs')).href,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(specifier)});`,
    ],
    { cwd: ROOT },
  );
  return frameworksIn((await readFile(log, 'utf8')).split('\n').filter(Boolean));
}

describe('the frameworks are optional peers', () => {
  it('require("express-app-mcp") loads none of them', async () => {
    expect(await requiredBy('express-app-mcp')).toEqual([]);
  });

  it('import("express-app-mcp") loads none of them', async () => {
    expect(await importedBy('express-app-mcp')).toEqual([]);
  });

  it('the LangGraph adapter loads LangGraph, from either build (the check sees a framework it loads)', async () => {
    expect(await requiredBy('express-app-mcp/langgraph')).toEqual(
      expect.arrayContaining(['@langchain/langgraph']),
    );
    expect(await importedBy('express-app-mcp/langgraph')).toEqual(
      expect.arrayContaining(['@langchain/langgraph']),
    );
  });

  it('the AI SDK adapter needs nothing of the AI SDK at run time', async () => {
    expect(await requiredBy('express-app-mcp/ai-sdk')).toEqual([]);
    expect(await importedBy('express-app-mcp/ai-sdk')).toEqual([]);
  });
});
