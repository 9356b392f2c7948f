/**
 * Where the time goes: `node bench/profile.mjs [tools/list|tools/call] [seconds] [ours|floor|sdk]`
 * starts that bench server (default ours) with `--cpu-prof`, loads it, stops it and prints the
 * functions with the most self time, and the same time grouped by area (our code, express, zod,
 * knex, node internals, GC, idle; start-up included). The raw profile stays in the temporary
 * folder (its path is printed) for Chrome DevTools or speedscope. Set BENCH_DIST to profile
 * another build.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, METHODS, startServer } from './lib.mjs';

const method = process.argv[2] ?? 'tools/call';
const seconds = Number(process.argv[3] ?? 10);
const target = process.argv[4] ?? 'ours';
if (!(method in METHODS))
  throw new Error(`unknown method ${method}; use ${Object.keys(METHODS).join(' or ')}`);
const dir = join(tmpdir(), 'express-app-mcp-profiles', `${target}-${method.replace('/', '-')}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const server = await startServer(`${target}.mjs`, { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
await load(server.urls, { methods: [method], connections: 20, duration: 2 }); // warm-up
const run = await load(server.urls, { methods: [method], connections: 20, duration: seconds });
await server.stop();
console.log(`${target} ${method}: ${Math.round(run.rps)} req/s while profiled`);

const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
summarize(JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')));
console.log(`\nprofile: ${dir}/${file}`);

function summarize(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    self.set(id, (self.get(id) ?? 0) + delta);
  });
  const byFunction = new Map();
  const byArea = new Map();
  for (const [id, time] of self) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const where = url ? `${shorten(url)}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + time);
    const area = areaOf(functionName, url);
    byArea.set(area, (byArea.get(area) ?? 0) + time);
  }
  const percent = (time) => `${((100 * time) / total).toFixed(1).padStart(5)}%`;
  console.log('\nself time by area:');
  for (const [area, time] of [...byArea].sort((a, b) => b[1] - a[1]))
    console.log(`  ${percent(time)}  ${area}`);
  console.log('\ntop functions by self time:');
  for (const [key, time] of [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env.PROFILE_TOP ?? 30))) {
    console.log(`  ${percent(time)}  ${key}`);
  }
}

function shorten(url) {
  const index = url.indexOf('node_modules/');
  if (index !== -1) return url.slice(index + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  return dist !== -1 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}

function areaOf(functionName, url) {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(program)') return 'native / program';
  if (!url && /^write/.test(functionName)) return 'socket writes (kernel)';
  const module = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (module) return module;
  const ours = url.match(/\/dist\/(.+)$/)?.[1];
  if (ours) return `express-app-mcp: ${ours}`;
  if (url.startsWith('node:')) return 'node internals';
  return url ? `other: ${shorten(url)}` : 'native / builtin';
}
