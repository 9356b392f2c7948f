/**
 * Where a call's time goes, in-process: `node bench/call-pieces.mjs [iterations] [piece]` times the
 * pieces of the bench's `tools/call` one by one, many times each, on the bench's Echo app and server
 * (bench/fixture.mjs): the tool cache's lookup, the argument check, the run (from its start to its
 * shaped result), shaping the result alone, the reply's JSON text, and the whole protocol core for
 * a resolved server's `tools/call` and `tools/list` (from the parsed body to the text the HTTP
 * layer writes, without a socket), 20 in flight.
 *
 * Each figure is the CPU time of the process (`process.cpuUsage`, garbage collection included) per
 * operation, the median of several rounds, and the bytes it allocates (V8's sampling heap profiler,
 * counting what the collector has freed since): what other processes do to the machine moves
 * these less than wall time or requests per second. Each piece runs in a process of its own;
 * `piece` (e.g. `core-call`) runs that one alone, for a CPU profile:
 * `node --cpu-prof bench/call-pieces.mjs 400000 core-call`. Set BENCH_DIST to measure another build.
 */
import { spawnSync } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ARGUMENTS, CALL_REQUEST, ECHO_APP, LIST_REQUEST, PROTOCOL_VERSION } from './fixture.mjs';

const dist = process.env.BENCH_DIST
  ? pathToFileURL(`${join(resolve(process.env.BENCH_DIST))}/`).href
  : new URL('../dist/', import.meta.url).href;
const load = (path) => import(new URL(path, dist).href);
const { createToolCache } = await load('tool/tool.js');
const { createToolRuns } = await load('tool/runs.js');
const { resultOf } = await load('tool/call.js');
const { fromPlainResult } = await load('tool/collect.js');
const { featuresOf } = await load('versions.js');
const { resultResponse, jsonReply } = await load('protocol/reply.js');
const { createMcpCore } = await load('endpoint/mcp-core.js');
const { parseMcpServerOptions } = await load('endpoint/mcp-server-options.js');

const iterations = Number(process.argv[2] ?? 200_000);
const only = process.argv[3];
const ROUNDS = 7;

const server = {
  id: 'server-1',
  tenantId: 'bench',
  appId: ECHO_APP.id,
  name: ECHO_APP.name,
  description: '',
  parameters: {},
  status: 'active',
  authMode: 'code',
  serverCode: 'bench',
  createdAt: new Date(0),
  updatedAt: new Date(0),
};
const endUser = { id: 'end-user', name: 'bench' };
const features = featuresOf(PROTOCOL_VERSION);
const toolFor = createToolCache();
const tool = toolFor(ECHO_APP, server);
const runApp = async ({ inputs }) => ({ outputs: { text: inputs.text } });
const shapeOptions = { report: () => {}, maxInlineResultBytes: 4 * 1024 * 1024 };
const produced = () => fromPlainResult('workflow', { outputs: { text: 'hello' } });
const shaped = resultOf(produced(), tool, features, undefined, shapeOptions);

// The run, as the core starts it: a known end user, no observer, the default call timeout.
const runs = createToolRuns({
  runApp,
  callTimeoutMs: 300_000,
  maxInlineResultBytes: 4 * 1024 * 1024,
  report: () => {},
});
const keepWatching = () => {};
const startRun = (id) =>
  runs.start({
    id,
    tool,
    app: ECHO_APP,
    server,
    endUser,
    inputs: { text: 'hello' },
    features,
    protocolVersion: PROTOCOL_VERSION,
    request: {},
    onClosed: () => keepWatching,
    caller: { kind: 'code' },
  });

// The core, as mcpServer() makes it, serving the bench's server and app from memory: the store's
// code cache answers a known code without a query, so this is what the hot path does.
const resolved = { server, app: ECHO_APP, endUser: async () => endUser };
const { core } = createMcpCore(parseMcpServerOptions({ resolveServer: async () => resolved, runApp }));
const headers = { protocolVersion: PROTOCOL_VERSION };
/** One request through the core, the reply's text made as the HTTP layer makes it. */
function serve(text) {
  return core({
    payload: JSON.parse(text), // a fresh parse per request, as the endpoint's
    headers,
    resolve: (options) => Promise.resolve(options?.checkServer?.(server)).then(() => resolved),
    onClosed: () => keepWatching,
    request: {},
    acceptsEventStream: true,
  }).then(
    (reply) =>
      new Promise((done) => {
        if (reply.kind !== 'later') return done(written(reply));
        reply.reply.deliver({ reply: (known) => done(written(known)) });
      }),
  );
}
const written = (reply) => reply.json ?? JSON.stringify(reply.body);
const callText = JSON.stringify(CALL_REQUEST);
const listText = JSON.stringify(LIST_REQUEST);

// The same bytes as the floor's, or the figures are of something else.
const expected = JSON.stringify({
  jsonrpc: '2.0',
  id: CALL_REQUEST.id,
  result: {
    content: [{ type: 'text', text: JSON.stringify(ARGUMENTS) }],
    isError: false,
    structuredContent: ARGUMENTS,
  },
});
const answered = await serve(callText);
if (answered !== expected) throw new Error(`the core answered ${answered}, not ${expected}`);

/** Each piece: synchronous work, or asynchronous work run 20 at a time, as under load. */
const PIECES = {
  'tool-cache': ['tool cache: the lookup (createToolCache)', () => toolFor(ECHO_APP, server)],
  arguments: ['argument check (tool.checkArguments)', () => tool.checkArguments({ text: 'hello' })],
  run: ['run: start, runApp, shaped result (createToolRuns)', (i) => startRun(i), true],
  shaping: [
    'result shaping alone (fromPlainResult + resultOf)',
    () => resultOf(produced(), tool, features, undefined, shapeOptions),
  ],
  reply: ['reply: the response and its JSON text', () => written(jsonReply(200, resultResponse(2, shaped)))],
  parse: ['the request body parsed (JSON.parse)', () => JSON.parse(callText)],
  'core-call': ['protocol core: tools/call, all of it', () => serve(callText), true],
  'core-list': ['protocol core: tools/list, all of it', () => serve(listText), true],
};

/** The CPU time this process has used, in ns (µs resolution). */
function cpuNs() {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

async function repeat(work, concurrent, count) {
  if (!concurrent) {
    for (let i = 0; i < count; i++) work(i);
    return;
  }
  for (let done = 0; done < count; done += 20) {
    const group = [];
    for (let i = 0; i < 20; i++) group.push(work(done + i));
    await Promise.all(group);
  }
}

/** Median CPU ns per operation over ROUNDS rounds. */
async function cpuPerOperation(work, concurrent) {
  const count = concurrent ? Math.floor(iterations / 4) : iterations;
  await repeat(work, concurrent, Math.min(count, 20_000)); // warm-up
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = cpuNs();
    await repeat(work, concurrent, count);
    rounds.push((cpuNs() - start) / count);
  }
  return [...rounds].sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
}

/** Bytes allocated per operation, garbage included, from V8's sampling heap profiler. */
async function bytesPerOperation(session, work, concurrent) {
  const count = Math.floor(iterations / 4);
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await repeat(work, concurrent, count);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  let total = 0;
  const walk = (node) => {
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return total / count;
}

// Each piece in a process of its own: pieces that share code (the run, the core) would otherwise
// shape each other's inline caches, and the figures would depend on their order.
if (!only) {
  console.log(
    `${process.version}; CPU per operation, median of ${ROUNDS} rounds of ${iterations} (async: a quarter, 20 at a time), and bytes allocated:`,
  );
  for (const piece of Object.keys(PIECES)) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), String(iterations), piece], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (child.status !== 0) throw new Error(`piece ${piece} failed`);
    process.stdout.write(child.stdout);
  }
  process.exit(0);
}
if (!PIECES[only]) throw new Error(`unknown piece ${only}; use one of ${Object.keys(PIECES).join(', ')}`);
const [label, work, concurrent = false] = PIECES[only];
const ns = await cpuPerOperation(work, concurrent);
// Bytes after the time: the heap profiler slows what runs while it samples.
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
const bytes = await bytesPerOperation(session, work, concurrent);
session.disconnect();
console.log(`  ${ns.toFixed(0).padStart(7)} ns  ${bytes.toFixed(0).padStart(6)} B  ${label}`);
process.exit(0);
