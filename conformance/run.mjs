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
 * - The tool scenarios (TOOL_SCENARIOS) call fixture tools of the suite's own (`test_image_content`,
 *   ...). `conformance/fixture-host.mjs` publishes each as an app on its own server, and each such
 *   scenario runs again, alone, against the server of its tool, with the same baseline. In the
 *   whole-suite run against the example app they fail (no such tool there) and count as expected.
 *
 * - The `tasks-*` scenarios (TASK_SCENARIOS; the tasks extension, 2026-07-28 only) run alone against
 *   the fixture host's tasks router, which serves the several tools each calls on one URL, without
 *   `--spec-version`: with it the suite skips an extension scenario and exits 0. Their baseline is
 *   `conformance/expected-failures.tasks.yml`; a scenario the suite skips fails the run, except
 *   `tasks-status-notifications`, which the suite always skips.
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
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { node22, toolEntry } from '../scripts/tools.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REVISIONS = ['2025-11-25', '2026-07-28'];
/** Unscored in the suite's requirement sets (pending there), but this package's 2026-07-28 support requires them to pass (docs/http-contract.md). */
const ALSO_REQUIRED = { '2025-11-25': [], '2026-07-28': ['http-header-validation'] };
/**
 * Each scenario that calls a fixture tool: the tool (an app of conformance/fixture-apps.mjs), the
 * revisions the suite runs it for (default: both), and the check it fails against the example app,
 * which has no such tool (default: the scenario's name).
 */
const TOOL_SCENARIOS = {
  'tools-call-simple-text': { tool: 'test_simple_text' },
  'tools-call-image': { tool: 'test_image_content' },
  'tools-call-audio': { tool: 'test_audio_content' },
  'tools-call-embedded-resource': { tool: 'test_embedded_resource' },
  'tools-call-mixed-content': { tool: 'test_multiple_content_types' },
  'tools-call-error': { tool: 'test_error_handling' },
  'tools-call-with-progress': { tool: 'test_tool_with_progress' },
  // Runs that ask a person (docs/asking-a-person.md): elicitation on the call's stream ...
  'tools-call-elicitation': { tool: 'test_elicitation', revisions: ['2025-11-25'] },
  'elicitation-sep1034-defaults': {
    tool: 'test_elicitation_sep1034_defaults',
    revisions: ['2025-11-25'],
    check: 'elicitation-sep1034-general',
  },
  'elicitation-sep1330-enums': {
    tool: 'test_elicitation_sep1330_enums',
    revisions: ['2025-11-25'],
    check: 'elicitation-sep1330-general',
  },
  // ... and input_required results (2026-07-28; sampling and roots are never requested).
  'input-required-result-basic-elicitation': {
    tool: 'test_input_required_result_elicitation',
    revisions: ['2026-07-28'],
    check: 'sep-2322-elicitation-incomplete',
  },
  'input-required-result-request-state': {
    tool: 'test_input_required_result_request_state',
    revisions: ['2026-07-28'],
    check: 'sep-2322-request-state-incomplete',
  },
  'input-required-result-multi-round': {
    tool: 'test_input_required_result_multi_round',
    revisions: ['2026-07-28'],
    check: 'sep-2322-multi-round-r1',
  },
  'input-required-result-missing-input-response': {
    tool: 'test_input_required_result_elicitation',
    revisions: ['2026-07-28'],
    check: 'sep-2322-missing-response-rerequests',
  },
  'input-required-result-result-type': {
    tool: 'test_input_required_result_elicitation',
    revisions: ['2026-07-28'],
    check: 'sep-2322-result-type-included',
  },
  'input-required-result-tampered-state': {
    tool: 'test_input_required_result_tampered_state',
    revisions: ['2026-07-28'],
    check: 'sep-2322-reject-tampered-state',
  },
  'input-required-result-ignore-extra-params': {
    tool: 'test_input_required_result_elicitation',
    revisions: ['2026-07-28'],
    check: 'sep-2322-ignore-unexpected-params',
  },
};
/** The tool scenarios the suite runs for `revision`. */
const toolScenariosOf = (revision) =>
  Object.entries(TOOL_SCENARIOS).filter(([, { revisions }]) => revisions?.includes(revision) ?? true);
/** Every `tasks-*` scenario of the suite, run against the fixture host's tasks router. */
const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-status-notifications',
  'tasks-mrtr-input',
  'tasks-mrtr-composition',
];
/** The suite skips this one whatever the server does (it waits for `subscriptions/listen`). */
const ALWAYS_SKIPPED = new Set(['tasks-status-notifications']);
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
// `npm start` built the package; the fixture host imports the build.
const fixtures = await startFixtureHost().catch(async (error) => {
  await host.stop();
  fail(error.message);
});
/** The suite process while it runs, so that the time limit can stop it too. */
let suite;
const limit = setTimeout(() => {
  console.error(`conformance: still running after ${RUN_LIMIT_MS / 60_000} minutes; stopping`);
  suite?.kill('SIGKILL');
  Promise.all([host.stop(), fixtures.stop()]).finally(() => process.exit(1));
}, RUN_LIMIT_MS);

let failed = false;
try {
  console.log(`conformance: the suite against ${host.url} (the example app's ${values.app})`);
  for (const revision of revisions) {
    if (!(await runRevision(revision, host.url))) failed = true;
    if (!(await runToolScenarios(revision, fixtures.urls))) failed = true;
  }
  if (revisions.includes('2026-07-28') && !(await runTaskScenarios(fixtures.urls['tasks-fixtures'])))
    failed = true;
} finally {
  clearTimeout(limit);
  await Promise.all([host.stop(), fixtures.stop()]);
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
  const baseline = await withToolScenarios(revision);
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

/**
 * The revision's baseline plus the tool scenarios, which fail against the example app by design:
 * `runToolScenarios` holds them to the committed baseline against their own servers.
 */
async function withToolScenarios(revision) {
  const committed = await readFile(baselineOf(revision), 'utf8');
  const entries = toolScenariosOf(revision)
    .map(([scenario, { check = scenario }]) => `${scenario}:${check}`)
    .filter((entry) => !committed.includes(`- ${entry}`))
    .map((entry) => `  - ${entry} # run against its own fixture server\n`);
  const file = join(work, `expected-failures.${revision}.yml`);
  await writeFile(file, `${committed.trimEnd()}\n${entries.join('')}`);
  return file;
}

function baselineOf(revision) {
  return join(root, 'conformance', `expected-failures.${revision}.yml`);
}

/**
 * Each tool scenario alone against the server of its fixture tool, for the revision
 * (`--spec-version`: the suite does not combine `--scenario` with `--requirements`), with the
 * committed baseline: a failure it does not list, or a listed one that now passes, fails the run.
 */
async function runToolScenarios(revision, urls) {
  console.log(`\n=== MCP conformance, tool scenarios against the fixture host, ${revision} ===`);
  let passed = true;
  for (const [scenario, { tool }] of toolScenariosOf(revision)) {
    const args = [SUITE, 'server', '--url', urls[tool], '--scenario', scenario, '--spec-version', revision];
    const outputDir = join(work, `${revision}-tools`);
    const { code, output } = await run(
      NODE_22,
      [...args, '--expected-failures', baselineOf(revision), '--output-dir', outputDir],
      {
        cwd: root,
        env: { ...process.env, PATH: `${dirname(NODE_22)}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
      },
    );
    const results = output.match(/^Passed: .*$/m)?.[0] ?? '(the suite printed no result)';
    const baselined = /^ {2}~ /m.test(output) ? ' (failing, as baselined)' : '';
    console.log(`  ${code === 0 ? '✓' : '✗'} ${scenario} on ${tool}: ${results}${baselined}`);
    if (code !== 0) {
      console.log(output.trimEnd());
      passed = false;
    }
  }
  return passed;
}

/**
 * Each `tasks-*` scenario alone against the tasks router, without `--spec-version` (the suite then
 * runs it as 2026-07-28, the only revision of the extension), with the tasks baseline.
 */
async function runTaskScenarios(url) {
  console.log('\n=== MCP conformance, tasks scenarios against the fixture host, 2026-07-28 ===');
  let passed = true;
  for (const scenario of TASK_SCENARIOS) {
    const args = [SUITE, 'server', '--url', url, '--scenario', scenario];
    const outputDir = join(work, 'tasks');
    const { code, output } = await run(
      NODE_22,
      [
        ...args,
        '--expected-failures',
        join(root, 'conformance', 'expected-failures.tasks.yml'),
        '--output-dir',
        outputDir,
      ],
      {
        cwd: root,
        env: { ...process.env, PATH: `${dirname(NODE_22)}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
      },
    );
    const results = output.match(/^Passed: .*$/m)?.[0] ?? '(the suite printed no result)';
    const skipped = /\bSKIPPED\b/.test(output) && !ALWAYS_SKIPPED.has(scenario);
    const baselined = /^ {2}~ /m.test(output) ? ' (failing checks as baselined)' : '';
    const ok = code === 0 && !skipped;
    console.log(
      `  ${ok ? '✓' : '✗'} ${scenario}: ${results}${skipped ? ' (skipped by the suite)' : baselined}`,
    );
    if (!ok) {
      console.log(output.trimEnd());
      passed = false;
    }
  }
  return passed;
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

/** The fixture host (conformance/fixture-host.mjs) on a free port, and the MCP URL of each fixture tool. */
async function startFixtureHost() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(root, 'conformance', 'fixture-host.mjs')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port) },
  });
  const log = collect(child);
  const stop = () => stopGroup(child);
  try {
    let servers;
    await waitFor(
      async () => {
        const reply = await fetch(`${base}/servers`);
        servers = reply.ok ? await reply.json() : undefined;
        return servers !== undefined;
      },
      child,
      log,
    );
    const urls = Object.fromEntries(
      Object.entries(servers).map(([tool, path]) => [tool, new URL(path, base).href]),
    );
    return { urls, stop };
  } catch (error) {
    await stop();
    throw new Error(`the fixture host did not start: ${error.message}\n${log()}`);
  }
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
