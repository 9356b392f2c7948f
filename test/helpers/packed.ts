/**
 * The package as `npm pack` publishes it, for the tests that install it into a new project.
 *
 * It is built from the repository's current files into a staging folder of its own (so that a
 * build running in the repository at the same time, `npm start` or the bench, cannot interfere,
 * and nothing stale from an older build gets packed), then packed there. Several test files need
 * the tarball; each build takes a while, so the tarball is kept under `node_modules/.cache`, named
 * after a hash of everything that goes into it, and reused while none of that changes.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'express-app-mcp-packed');

export interface Packed {
  /** The `.tgz` file. */
  tarball: string;
  /** Every path in the tarball, sorted. */
  files: string[];
  /** What `npm pack --json` printed on stdout, its `prepack` build included. */
  packOutput: string;
}

/**
 * The environment without npm's per-run variables: an `npm test` parent would otherwise hand its
 * own project folder and settings to the npm commands run here.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD') env[key] = value;
  }
  return env;
}

export async function npm(cwd: string, ...args: string[]) {
  return run('npm', args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
}

/** `name@version` of the copy this repository tests with, so npm finds it in its cache. */
export async function installedVersion(name: string, installedAs = name): Promise<string> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'node_modules', installedAs, 'package.json'), 'utf8'));
  return `${name}@${pkg.version}`;
}

/** The files the tarball is made from: the manifest's `files`, plus what builds `dist/`. */
async function inputs(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const listed = [
    'package.json',
    'tsconfig.json',
    'scripts/build.mjs',
    ...manifest.files.filter((entry) => entry !== 'dist'),
  ];
  const files: string[] = [];
  for (const entry of listed) {
    const path = join(ROOT, entry);
    if (!existsSync(path)) continue;
    const nested = await readdir(path, { recursive: true, withFileTypes: true }).catch(() => null);
    if (nested === null) files.push(entry);
    else
      for (const item of nested) {
        if (item.isFile()) files.push(join(item.parentPath, item.name).slice(ROOT.length + 1));
      }
  }
  return files.sort();
}

async function contentHash(files: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(await readFile(join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Builds and packs the package, or reuses the tarball of the same files. */
export async function packedPackage(): Promise<Packed> {
  const files = await inputs();
  const folder = join(CACHE, await contentHash(files));
  const done = join(folder, 'packed.json');
  if (existsSync(done)) return JSON.parse(await readFile(done, 'utf8'));

  const scratch = `${folder}.${randomBytes(4).toString('hex')}.tmp`;
  const staging = join(scratch, 'staging');
  await mkdir(staging, { recursive: true });
  try {
    for (const file of files) await cp(join(ROOT, file), join(staging, file));
    // As a publisher packs it: `prepack` builds `dist/`, and with `--json` stdout is the JSON alone.
    const { stdout } = await npm(staging, 'pack', '--json', '--pack-destination', scratch);
    const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const packed: Packed = {
      tarball: join(folder, info!.filename),
      files: info!.files.map((file) => file.path).sort(),
      packOutput: stdout,
    };
    await rm(staging, { recursive: true, force: true });
    await writeFile(join(scratch, 'packed.json'), JSON.stringify(packed));
    try {
      await rename(scratch, folder);
    } catch (error) {
      // Another test file packed the same files at the same moment: theirs is as good.
      if (!existsSync(done)) throw error;
    }
    return packed;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
