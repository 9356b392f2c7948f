/**
 * The long-run rows of `npm run bench` (README, "Long runs"):
 * - a streamed call: the Echo app streams five progress events at once before its outputs, and a
 *   call with a progress token gets them as an event stream; against our JSON call of the same app
 *   on the same server (no token: the same run answers JSON). Loaded in turns, like the main rows;
 * - a soak: many concurrent streamed calls of an app that says nothing for 5 s, with
 *   `heartbeatMs: 1000`: how many complete, the gaps between the events each client receives (the
 *   silences a proxy would see), and how much resident memory the server needs on top.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { CALL_REQUEST, HEADERS, PROGRESS_EVENTS, STREAMED_CALL_REQUEST } from './fixture.mjs';
import { load, median, startServer } from './lib.mjs';

const BODIES = { streamed: JSON.stringify(STREAMED_CALL_REQUEST), json: JSON.stringify(CALL_REQUEST) };
const ECHO_RESULT = {
  content: [{ type: 'text', text: '{"text":"hello"}' }],
  isError: false,
  structuredContent: { text: 'hello' },
};

/** The streamed call against the JSON call of the same app, as `{ streamed, json, ratio }`. */
export async function measureStreamedCall({ duration, rounds, connections, warmup }, log) {
  const server = await startServer('streaming.mjs');
  try {
    await checkShapes(server.url);
    for (const body of Object.values(BODIES))
      await load(server.url, { bodies: [body], connections, duration: warmup });
    const runs = { streamed: [], json: [] };
    for (let round = 0; round < rounds; round++) {
      for (const key of round % 2 === 0 ? ['streamed', 'json'] : ['json', 'streamed']) {
        const cpuBefore = await server.cpu();
        const run = await load(server.url, { bodies: [BODIES[key]], connections, duration });
        run.cpuPerRequest = ((await server.cpu()) - cpuBefore) / run.total;
        runs[key].push(run);
      }
    }
    log('streamed call measured');
    const summary = (list) => ({
      rps: Math.round(median(list.map((run) => run.rps))),
      p50: median(list.map((run) => run.p50)),
      p99: median(list.map((run) => run.p99)),
      cpuMicrosPerRequest: Math.round(median(list.map((run) => run.cpuPerRequest))),
      rounds: list.map((run) => Math.round(run.rps)),
    });
    const ratio = median(runs.streamed.map((run, round) => run.rps / runs.json[round].rps));
    return { streamed: summary(runs.streamed), json: summary(runs.json), ratio: Number(ratio.toFixed(2)) };
  } finally {
    await server.stop();
  }
}

/** The two calls must be what their rows say: five progress events and the result, and plain JSON. */
async function checkShapes(url) {
  const post = (body) => fetch(url, { method: 'POST', headers: HEADERS, body });
  const streamed = await post(BODIES.streamed);
  const events = (await streamed.text()).split('\n\n').filter(Boolean);
  const last = JSON.parse(events.at(-1).slice('data: '.length));
  if (
    streamed.headers.get('content-type') !== 'text/event-stream' ||
    events.length !== PROGRESS_EVENTS + 1 ||
    JSON.stringify(last.result) !== JSON.stringify(ECHO_RESULT)
  ) {
    throw new Error(
      `the streamed call is not ${PROGRESS_EVENTS} progress events and the result:\n${events.join('\n')}`,
    );
  }
  const json = await post(BODIES.json);
  const text = await json.text();
  if (json.headers.get('content-type') !== 'application/json' || JSON.parse(text).result === undefined) {
    throw new Error(`the JSON call is not a JSON reply: ${text}`);
  }
}

/**
 * The soak, `rounds` times on ours and on its floor in turns (the order swapped every round, as
 * the rows above are loaded), each round on fresh servers. A round's memory depends on when V8
 * happens to enlarge its young generation during the burst, which moves it by several MiB from one
 * round to the next for the same code, so memory is read as the median of the rounds, with their
 * range; completions are counted over all rounds and the gaps pooled.
 */
export async function soakRounds({ rounds, ...settings }, log) {
  const runs = { floor: [], ours: [] };
  for (let round = 0; round < rounds; round++) {
    for (const key of round % 2 === 0 ? ['floor', 'ours'] : ['ours', 'floor']) {
      runs[key].push(
        await soak({ ...settings, ...(key === 'floor' ? { file: 'streaming-floor.mjs' } : {}) }),
      );
    }
    log(`soak round ${round + 1}/${rounds} done`);
  }
  return { floor: summarizeSoak(runs.floor), ours: summarizeSoak(runs.ours) };
}

/** The rounds of one server's soak as one row: medians of the memory figures, with the RSS range. */
function summarizeSoak(runs) {
  const [first] = runs;
  const gaps = runs.flatMap((run) => run.gaps).sort((a, b) => a - b);
  const quantile = (q) =>
    Number((gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] / 1000).toFixed(3));
  const middle = (pick) => Number(median(runs.map(pick)).toFixed(1));
  const spaces = (name) => ({
    physical: middle((run) => run.extraSpacesMiB[name].physical),
    used: middle((run) => run.extraSpacesMiB[name].used),
  });
  return {
    rounds: runs.length,
    calls: first.calls,
    heartbeatMs: first.heartbeatMs,
    runMs: first.runMs,
    completed: runs.reduce((sum, run) => sum + run.completed, 0),
    heartbeats: runs.reduce((sum, run) => sum + run.heartbeats, 0),
    gapSeconds: { p50: quantile(0.5), p99: quantile(0.99), max: quantile(1) },
    extraRssMiB: middle((run) => run.extraRssMiB),
    extraRssRoundsMiB: runs.map((run) => run.extraRssMiB),
    extraHeapMiB: middle((run) => run.extraHeapMiB),
    extraHeapTotalMiB: middle((run) => run.extraHeapTotalMiB),
    peakExtraRssMiB: first.peakExtraRssMiB === null ? null : middle((run) => run.peakExtraRssMiB),
    extraSpacesMiB: { new_space: spaces('new_space'), old_space: spaces('old_space') },
  };
}

/**
 * `calls` concurrent streamed calls of an app that waits `runMs`, with heartbeats every
 * `heartbeatMs`. Returns how many ended with the app's result; the gaps between consecutive events
 * on each stream (the silences a proxy sees once the stream is open; the first event comes
 * `heartbeatMs` after the server took the request, which with a thousand connections opened at
 * once also depends on how fast the machine accepts them); and the server's resident memory above
 * its memory before the soak: held by the open streams (both after a forced GC, half-way through),
 * and at its peak (sampled every 100 ms from /proc, garbage included).
 */
async function soak({ calls, heartbeatMs, runMs, file = 'streaming.mjs' }) {
  const server = await startServer(file, {
    env: { BENCH_STREAM_APP: 'wait', BENCH_HEARTBEAT_MS: String(heartbeatMs), BENCH_WAIT_MS: String(runMs) },
  });
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => streamedCall(server.url, `warm-${index}`, agent)),
    );
    const before = await server.memory();
    const measurable = residentMemory(server.pid) !== undefined;
    let peakRss = before.rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, residentMemory(server.pid) ?? 0);
    }, 100);
    const pending = Promise.all(
      Array.from({ length: calls }, (_, index) => streamedCall(server.url, `soak-${index}`, agent)),
    );
    await new Promise((resolve) => setTimeout(resolve, runMs / 2));
    const during = await server.memory();
    const outcomes = await pending;
    clearInterval(sampler);
    return {
      calls,
      heartbeatMs,
      runMs,
      completed: outcomes.filter((outcome) => outcome.completed).length,
      heartbeats: outcomes.reduce((sum, outcome) => sum + outcome.heartbeats, 0),
      gaps: outcomes.flatMap((outcome) => outcome.gaps),
      extraRssMiB: mib(during.rss - before.rss),
      extraHeapMiB: mib(during.heapUsed + during.external - before.heapUsed - before.external),
      extraHeapTotalMiB: mib(during.heapTotal - before.heapTotal),
      peakExtraRssMiB: measurable ? mib(peakRss - before.rss) : null,
      // Where the heap grew, space by space, after a forced GC: the pages V8 holds, and the objects in them.
      extraSpacesMiB: Object.fromEntries(
        Object.entries(during.spaces)
          .filter(([name]) => ['new_space', 'old_space'].includes(name))
          .map(([name, { physical, used }]) => [
            name,
            {
              physical: mib(physical - before.spaces[name].physical),
              used: mib(used - before.spaces[name].used),
            },
          ]),
      ),
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** One streamed call, read event by event. */
function streamedCall(url, token, agent) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'Wait', arguments: {}, _meta: { progressToken: token } },
  });
  return new Promise((resolve) => {
    const gaps = [];
    let last;
    let buffered = '';
    let heartbeats = 0;
    let response;
    const request = http.request(
      url,
      { method: 'POST', headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) }, agent },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffered += chunk;
          for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const now = performance.now();
            if (last !== undefined) gaps.push(now - last);
            last = now;
            const message = JSON.parse(block.slice('data: '.length));
            if (message.method === 'notifications/progress') heartbeats++;
            else response = message;
          }
        });
        res.on('end', () =>
          resolve({ gaps, heartbeats, completed: response?.result?.structuredContent?.waited !== undefined }),
        );
        res.on('error', () => resolve({ gaps, heartbeats, completed: false }));
      },
    );
    request.on('error', () => resolve({ gaps, heartbeats, completed: false }));
    request.end(body);
  });
}

const mib = (bytes) => Number((bytes / 1024 / 1024).toFixed(1));

/** The resident memory of a process, from Linux's /proc (bytes); `undefined` elsewhere. */
function residentMemory(pid) {
  try {
    const kib = /VmRSS:\s*(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** The long-run rows as the bench prints them. */
export function longRunReport(streamed, soaked) {
  const lines = [];
  if (streamed) {
    const row = (label, r, ratio) =>
      `| ${label} | tools/call | ${r.rps} | ${r.p50} | ${r.p99} | ${r.cpuMicrosPerRequest} | ${ratio} |`;
    lines.push(
      '| server | method | req/s (median) | p50 ms | p99 ms | server CPU µs/req | vs JSON call |',
      '|---|---|---:|---:|---:|---:|---:|',
      row(
        `ours, streamed call (${PROGRESS_EVENTS} progress events, token)`,
        streamed.streamed,
        streamed.ratio.toFixed(2),
      ),
      row('ours, JSON call of the same app', streamed.json, '1.00'),
    );
  }
  if (soaked) {
    for (const [label, run] of [
      ['soak, floor (Express alone)', soaked.floor],
      ['soak, ours', soaked.ours],
    ]) {
      const peak = run.peakExtraRssMiB === null ? 'not measured here' : `${run.peakExtraRssMiB} MiB`;
      const range = `${Math.min(...run.extraRssRoundsMiB)} to ${Math.max(...run.extraRssRoundsMiB)}`;
      lines.push(
        `\n${label}: ${run.completed}/${run.calls * run.rounds} streamed calls of ${run.runMs / 1000} s completed, ` +
          `${run.calls} at once in each of ${run.rounds} rounds (heartbeatMs ${run.heartbeatMs}, ${run.heartbeats} heartbeats); ` +
          `gaps between events p50 ${run.gapSeconds.p50} s, p99 ${run.gapSeconds.p99} s, max ${run.gapSeconds.max} s; ` +
          `extra RSS while all are open (after a forced GC) ${run.extraRssMiB} MiB, the median of the rounds ` +
          `(${range} MiB), ${peak} at the peak; ` +
          `of it, live objects and buffers ${run.extraHeapMiB} MiB, V8 heap reserved +${run.extraHeapTotalMiB} MiB ` +
          `(young generation +${run.extraSpacesMiB.new_space.physical} MiB; old generation ` +
          `+${run.extraSpacesMiB.old_space.physical} MiB, of which objects ${run.extraSpacesMiB.old_space.used} MiB)`,
      );
    }
  }
  return lines.join('\n');
}
