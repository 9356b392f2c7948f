/**
 * The toolset rows of `npm run bench` (docs/toolsets.md): a 100-app toolset's `tools/list` against
 * a floor that answers the very same bytes (bench/servers/list-floor.mjs), and a `tools/call` of one
 * of its tools against the same call on the one-app server of that app, in the same process
 * (bench/servers/toolset.mjs). Loaded in turns, like the main rows; each ratio is the median of the
 * per-round ratios.
 */
import { isDeepStrictEqual } from 'node:util';
import { ARGUMENTS, HEADERS, TOOL_NAME, TOOLSET_SIZE } from './fixture.mjs';
import { load, measureInTurns, startServer } from './lib.mjs';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const callOf = (name) =>
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: ARGUMENTS } });
/** The member called: the first app, which has a one-app server of its own to compare with. */
const MEMBER = `${TOOL_NAME}_0`;

const post = async (url, body) => (await fetch(url, { method: 'POST', headers: HEADERS, body })).json();

export async function measureToolsets({ duration, rounds, connections, warmup }, log) {
  const ours = await startServer('toolset.mjs');
  const [toolsetUrl, oneAppUrl] = ours.urls;
  const listed = (await post(toolsetUrl, LIST)).result;
  if (listed?.tools?.length !== TOOLSET_SIZE) {
    await ours.stop();
    throw new Error(`the toolset listed ${listed?.tools?.length} tools, not ${TOOLSET_SIZE}`);
  }
  const floor = await startServer('list-floor.mjs', { env: { BENCH_FLOOR_LIST: JSON.stringify(listed) } });
  try {
    const floorListed = (await post(floor.url, LIST)).result;
    if (!isDeepStrictEqual(floorListed, listed))
      throw new Error('the list floor answers other bytes than ours');
    const calls = [await post(toolsetUrl, callOf(MEMBER)), await post(oneAppUrl, callOf(MEMBER))];
    if (!isDeepStrictEqual(calls[0].result, calls[1].result) || calls[0].result?.isError !== false) {
      throw new Error(`the toolset's call and the one-app call differ: ${JSON.stringify(calls)}`);
    }
    const targets = {
      list: { server: ours, url: toolsetUrl, body: LIST },
      floor: { server: floor, url: floor.url, body: LIST },
      call: { server: ours, url: toolsetUrl, body: callOf(MEMBER) },
      oneApp: { server: ours, url: oneAppUrl, body: callOf(MEMBER) },
    };
    const measure = (key, seconds) =>
      load(targets[key].url, { methods: [], bodies: [targets[key].body], connections, duration: seconds });
    const { figures, ratio } = await measureInTurns(
      Object.keys(targets),
      { duration, rounds, warmup },
      measure,
      (key) => targets[key].server.cpu(),
    );
    log('toolsets measured');
    return {
      list: figures.list,
      floor: figures.floor,
      call: figures.call,
      oneApp: figures.oneApp,
      listRatio: ratio('list', 'floor'),
      callRatio: ratio('call', 'oneApp'),
      listBytes: JSON.stringify(listed).length,
    };
  } finally {
    await Promise.all([ours.stop(), floor.stop()]);
  }
}

/** The rows, for the report. */
export function toolsetReport(measured) {
  const row = (what, figures) =>
    `${what}: ${figures.rps} req/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, server CPU ${figures.cpuMicros} µs/req)`;
  return [
    `toolsets (${TOOLSET_SIZE} apps, a tools/list result of ${measured.listBytes} bytes):`,
    `  ${row('toolset tools/list', measured.list)}`,
    `  ${row('floor serving the same list', measured.floor)}: list ${measured.listRatio.toFixed(2)} × the floor`,
    `  ${row('toolset tools/call', measured.call)}`,
    `  ${row('one-app server tools/call', measured.oneApp)}: call ${measured.callRatio.toFixed(2)} × the one-app call`,
  ].join('\n');
}
