/**
 * The asking row (docs/asking-a-person.md, "Cost"): how much resident memory 10,000 runs that wait
 * for a person hold. A server process (bench/servers/asking.mjs, on the build in dist/) gets 10,000
 * 2026-07-28 `tools/call`s of an app that asks; each answers `input_required` and its run waits.
 * The row is the server's RSS after a forced GC with them all waiting, less its RSS before (after
 * a warm-up of 200 runs, answered). Then every run is answered, to show they were all still there.
 *
 *   npm run build && node bench/asking.mjs [--runs 10000]
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startServer } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10000' } } });
const RUNS = Number(values.runs);
const CONCURRENCY = 32;
const TOOL = 'Approval';
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const mib = (bytes) => Number((bytes / 1024 / 1024).toFixed(1));

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};

function call(url, id, extra = {}) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: TOOL, arguments: {}, _meta: meta, ...extra },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': TOOL,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(JSON.parse(text).result));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `work(i)` for i < count, CONCURRENCY at a time. */
async function pool(count, work) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

/** Asks `count` runs, each left waiting; their states. */
async function park(url, count, firstId) {
  return pool(count, async (i) => {
    const result = await call(url, firstId + i);
    if (result?.resultType !== 'input_required')
      throw new Error(`run ${i} did not wait: ${JSON.stringify(result)}`);
    return result.requestState;
  });
}

async function answer(url, states, firstId) {
  const results = await pool(states.length, (i) =>
    call(url, firstId + i, {
      inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } },
      requestState: states[i],
    }),
  );
  const done = results.filter((result) => result?.structuredContent?.decision === 'approve').length;
  if (done !== states.length) throw new Error(`${states.length - done} waiting runs did not finish`);
}

const server = await startServer('asking.mjs');
try {
  await answer(server.url, await park(server.url, 200, 1), 1_000_000);
  const before = await server.memory();
  const states = await park(server.url, RUNS, 2_000_000);
  const during = await server.memory();
  await answer(server.url, states, 3_000_000);
  const after = await server.memory();
  const row = {
    waitingRuns: RUNS,
    rssBeforeMiB: mib(before.rss),
    rssWaitingMiB: mib(during.rss),
    extraRssMiB: mib(during.rss - before.rss),
    extraHeapMiB: mib(during.heapUsed - before.heapUsed),
    bytesPerWaitingRun: Math.round((during.heapUsed - before.heapUsed) / RUNS),
    rssAfterAnsweredMiB: mib(after.rss),
  };
  console.log(JSON.stringify(row, null, 2));
  console.log(
    `${RUNS.toLocaleString('en-US')} waiting runs hold ${row.extraRssMiB} MiB of resident memory ` +
      `(${row.extraHeapMiB} MiB of heap, ${row.bytesPerWaitingRun} bytes each); target < 100 MiB: ` +
      `${row.extraRssMiB < 100 ? 'met' : 'NOT met'}`,
  );
  if (row.extraRssMiB >= 100) process.exitCode = 1;
} finally {
  agent.destroy();
  await server.stop();
}
