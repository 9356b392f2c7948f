/**
 * What the usage buffer holds in memory (docs/usage.md, bench/README.md "Usage"): 200,000 calls
 * over 1,000 caller keys of one server and tool, in one hour, counted into a `UsageBuffer` whose
 * writes are held back, then the same at its key cap (10,000 keys). The heap is read after a
 * forced GC before and after; the buffer's source is bundled on the fly with esbuild, since it is
 * not part of the package's public surface.
 *
 *   node --expose-gc bench/usage-memory.mjs
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

const bundled = await build({
  entryPoints: [new URL('../src/store/usage/buffer.ts', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
});
const folder = mkdtempSync(join(tmpdir(), 'usage-memory-'));
const file = join(folder, 'buffer.mjs');
writeFileSync(file, bundled.outputFiles[0].text);
const { UsageBuffer } = await import(pathToFileURL(file).href);
rmSync(folder, { recursive: true, force: true });

/** A store whose writes never finish: what is counted stays in the buffer. */
const heldStore = {
  addUsage: () => new Promise(() => {}),
  readUsage: async () => [],
  takeDailyCall: async () => true,
};

const heap = () => {
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const kib = (bytes) => (bytes / 1024).toFixed(0);

function measure(calls, callers) {
  const buffer = new UsageBuffer(heldStore, { flushMs: 3_600_000, maxKeys: 10_000, report: () => {} });
  const keys = Array.from({ length: callers }, (_, index) => ({
    kind: 'key',
    id: `key-${index}`,
    name: `Key ${index}`,
  }));
  const startedAt = Date.now();
  const before = heap();
  const start = process.hrtime.bigint();
  for (let call = 0; call < calls; call++) {
    buffer.count(
      '6f1c2d3e-0000-4000-8000-000000000001',
      'Text_Stats',
      keys[call % callers],
      startedAt,
      3,
      call % 10 === 0,
      false,
      0,
    );
  }
  const nanos = Number(process.hrtime.bigint() - start) / calls;
  const after = heap();
  return { calls, callers, keys: buffer.size, before, after, nanos, buffer };
}

for (const [calls, callers] of [
  [200_000, 1_000],
  [200_000, 10_000],
]) {
  const { keys, before, after, nanos } = measure(calls, callers);
  console.log(
    `${calls.toLocaleString('en-US')} calls over ${callers.toLocaleString('en-US')} callers: ${keys} keys held, ` +
      `heap ${kib(before)} → ${kib(after)} KiB (+${kib(after - before)} KiB, ${((after - before) / keys).toFixed(0)} B a key); ` +
      `${nanos.toFixed(0)} ns a call`,
  );
}
