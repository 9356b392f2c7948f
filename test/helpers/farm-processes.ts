/**
 * Instances of a farm as processes of their own (`test/farm/instance.ts`, bundled once), for the
 * suites that need an instance to stop as a process does: at once, without a word to the others.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Starting a process that loads Express, Knex and pg can take long on a busy machine. */
const START_MS = 60_000;

export interface FarmProcess {
  url: string;
  child: ChildProcess;
  /** The line the process printed once it listened, parsed (`{ port, ... }`). */
  ready: Record<string, unknown>;
}

/** The instance program, bundled so that each process runs the package's sources as they are. */
export async function bundleInstance(entry = join(ROOT, 'test', 'farm', 'instance.ts')): Promise<string> {
  const folder = join(
    ROOT,
    'node_modules',
    '.cache',
    `express-app-mcp-farm-${randomBytes(4).toString('hex')}`,
  );
  await mkdir(folder, { recursive: true });
  const outfile = join(folder, 'instance.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

export async function startInstance(bundle: string, env: Record<string, string>): Promise<FarmProcess> {
  const child = spawn(process.execPath, [bundle], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('an instance did not listen in time')), START_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`an instance exited (${code}) before listening: ${errors}`));
    });
  });
  return { url: `http://127.0.0.1:${ready.port as number}`, child, ready };
}

/** Stops an instance: SIGTERM, or with `kill` SIGKILL, as a crash or a lost machine would. */
export async function stopInstance({ child }: FarmProcess, kill = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(kill ? 'SIGKILL' : 'SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
