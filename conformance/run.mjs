#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against the example
 * app, once per protocol revision, and compares the result with our expected-failures baselines.
 *
 *   node conformance/run.mjs [--requirements <revision>]... [--app <id>]
 *
 * - `--requirements`: 2025-11-25 and/or 2026-07-28 (default: both, one run each).
 * - The example app is started as a user starts it, `npm start`, with a fresh SQLite file in a
 *   temporary folder, on 127.0.0.1 and a free port; the suite talks to the MCP URL of the app
 *   `--app` (default `text-stats`), read from the console API.
 *
 * The suite and a Node 22 binary for it (the suite needs Node 22 or later) are installed on first use
 * by `scripts/tools.mjs`; that Node's folder is put first on PATH for the suite's process only. The
 * suite only ever contacts 127.0.0.1.
 *
 * The verdict, per revision:
 * - the suite's own, with `--expected-failures conformance/expected-failures.<revision>.yml`:
 *   a required scenario failing a check the baseline does not list, or a listed check that now
 *   passes (a stale entry), fails the run;
 * - plus the scenarios we hold ourselves to although the requirement set does not score them
 *   (ALSO_REQUIRED): every one of their checks must pass.
 * The suite's summary is printed, ending with its "Total: N passed, M failed" line. Exits non-zero
 * when any revision fails. A failed run keeps the suite's result folder and prints where it is.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { node22, toolEntry } from '../scripts/tools.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REVISIONS = ['2025-11-25', '2026-07-28'];
/** Unscored in the suite's requirement sets (pending there), but issue 7 requires them to pass. */
const ALSO_REQUIRED = { '2025-11-25': [], '2026-07-28': ['http-header-validation'] };
const NODE_22 = await node22();
const SUITE = await toolEntry('conformance');
const CONSOLE_TOKEN = 'conformance-console-token';
// biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output even into a pipe
const ANSI_COLOR = /\x1b\[[0-9;]*m/g;
/** Generous: a whole run takes seconds; this only guarantees the script always stops by itself. */
const RUN_LIMIT_MS = 10 * 60_000;
const STARTUP_LIMIT_MS = 120_000;

const { values } = parseArgs({
  options: {
    requirements: { type: 'string', multiple: true },
    app: { type: 'string', default: 'text-stats' },
  },
});
const revisions = values.requirements ?? REVISIONS;
for (const revision of revisions) {
  if (!REVISIONS.includes(revision))
    fail(`unknown revision ${revision}; expected one of ${REVISIONS.join(', ')}`);
}

const work = await mkdtemp(join(tmpdir(), 'express-app-mcp-conformance-'));
const host = await startExampleApp(work, values.app);
/** The suite process while it runs, so that the time limit can stop it too. */
let suite;
const limit = setTimeout(() => {
  console.error(`conformance: still running after ${RUN_LIMIT_MS / 60_000} minutes; stopping`);
  suite?.kill('SIGKILL');
  host.stop().finally(() => process.exit(1));
}, RUN_LIMIT_MS);

let failed = false;
try {
  console.log(`conformance: the suite against ${host.url} (the example app's ${values.app})`);
  for (const revision of revisions) {
    if (!(await runRevision(revision, host.url))) failed = true;
  }
} finally {
  clearTimeout(limit);
  await host.stop();
}
if (failed) {
  console.log(`conformance: FAILED; the suite's results are kept in ${work}`);
  process.exit(1);
}
await rm(work, { recursive: true, force: true });
console.log(`conformance: passed for ${revisions.join(' and ')}`);

/** One revision: the suite with our baseline, then the checks of ALSO_REQUIRED. */
async function runRevision(revision, url) {
  const outputDir = join(work, revision);
  const baseline = join(root, 'conformance', `expected-failures.${revision}.yml`);
  const args = [SUITE, 'server', '--url', url, '--requirements', revision, '--expected-failures', baseline];
  const { code, output } = await run(NODE_22, [...args, '--output-dir', outputDir], {
    cwd: root,
    env: { ...process.env, PATH: `${dirname(NODE_22)}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
  });

  console.log(`\n=== MCP conformance, requirements ${revision} ===`);
  const summary = output.indexOf('=== SUMMARY ===');
  // The summary per scenario and the verdicts; the list of baselined checks is the baseline file.
  const shown = summary === -1 ? output : output.slice(summary);
  console.log(shown.replace(/\nExpected failures \(in baseline\):\n(?: {2}~ .*\n)*/, '\n').trimEnd());
  const total = output.match(/^Total: \d+ passed, \d+ failed.*$/m)?.[0] ?? '(the suite printed no total)';
  const baselined = output.match(/^ {2}~ /gm)?.length ?? 0;

  const problems = [];
  if (code !== 0)
    problems.push(`the suite exited with ${code} (unexpected failures or stale baseline entries above)`);
  for (const scenario of ALSO_REQUIRED[revision]) {
    problems.push(...(await requireAllPassing(outputDir, scenario)));
  }
  if (problems.length > 0) {
    if (summary === -1) console.log(output);
    for (const problem of problems) console.log(`  ✗ ${problem}`);
  }
  const verdict = problems.length === 0 ? 'as expected' : 'FAILED';
  console.log(`conformance ${revision}: ${total} (${baselined} failing checks baselined); ${verdict}`);
  return problems.length === 0;
}

/** Every check of a scenario must pass: the suite saved them as `server-<scenario>-<time>/checks.json`. */
async function requireAllPassing(outputDir, scenario) {
  const folders = existsSync(outputDir) ? await readdir(outputDir) : [];
  const folder = folders.find((name) => name.startsWith(`server-${scenario}-`));
  if (!folder) return [`${scenario} did not run`];
  const checks = JSON.parse(await readFile(join(outputDir, folder, 'checks.json'), 'utf8'));
  const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  if (checks.length === 0) return [`${scenario} ran no checks`];
  return bad.map(
    (check) => `${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? check.description}`,
  );
}

/** The example app as a user starts it (`npm start`), on a fresh SQLite file and a free port. */
async function startExampleApp(folder, appId) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn('npm', ['start'], {
    cwd: root,
    detached: true, // its own process group: `npm start` runs the build, then the app
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: join(folder, 'example.sqlite'),
      CONSOLE_TOKEN,
    },
  });
  const log = collect(child);
  const stop = () => stopGroup(child);
  try {
    await waitFor(async () => (await fetch(`${base}/apps`)).ok, child, log);
    const reply = await fetch(`${base}/console/api/apps/${appId}/server`, {
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    });
    const server = reply.ok ? await reply.json() : null;
    if (!server?.url)
      throw new Error(`the console has no server for the app ${appId} (HTTP ${reply.status})`);
    return { url: new URL(server.url, base).href, stop };
  } catch (error) {
    await stop();
    fail(`the example app did not start: ${error.message}\n${log()}`);
  }
}

function collect(child) {
  let text = '';
  child.stdout.on('data', (chunk) => {
    text += chunk;
  });
  child.stderr.on('data', (chunk) => {
    text += chunk;
  });
  return () => text;
}

async function waitFor(ready, child, log) {
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`it exited with ${child.exitCode}`);
    try {
      if (await ready()) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`not ready after ${STARTUP_LIMIT_MS / 1000} s\n${log()}`);
}

/** Stops a process group we started: SIGTERM, then SIGKILL if it is still there after a while. */
async function stopGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function freePort() {
  return new Promise((done, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

function run(command, args, options) {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    suite = child;
    const output = collect(child);
    child.once('error', reject);
    child.once('close', (code) => {
      suite = undefined;
      done({ code, output: output().replace(ANSI_COLOR, '') });
    });
  });
}

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(1);
}
