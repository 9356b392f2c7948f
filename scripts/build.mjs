#!/usr/bin/env node
/**
 * Builds the published files:
 * - `dist/**.js` + `.d.ts`: the ES module build, by `tsc -p tsconfig.json`, with source maps that
 *   point at `src/**.ts`, which the package ships next to `dist/`, so that a stack trace read
 *   through them names files that exist in the installed package;
 * - `dist/cjs/index.cjs`: the CommonJS build, one file bundled by esbuild from our own sources
 *   only (every package stays an external `require`);
 * - `dist/cjs/**.d.cts`: the declarations again, as CommonJS declarations, so TypeScript users who
 *   `require()` the package get types that describe a CommonJS module;
 * - each `assets` folder of `src/`, copied to the same place in `dist/`: the files a module reads
 *   beside itself (the console page's HTML, style sheet and scripts), as they are. Both builds read
 *   them from there: in the CommonJS bundle, `import.meta.url` is the URL of the same module in the
 *   ES module build.
 *
 * Usage: `node scripts/build.mjs [--out-dir <dir>]` (default `dist`).
 *
 * It writes nothing to stdout, tsc's messages included: as `prepack`, it runs inside
 * `npm pack --json`, whose stdout must be the JSON alone. What it says goes to stderr.
 *
 * Everything is built in a scratch folder first and then moved into place file by file with
 * `rename`, which replaces a file atomically: a process that starts the example app or the bench
 * while a build runs reads either the old or the new version of each file, never a half-written
 * one. Files of an older build that the new one no longer has are removed.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const { values } = parseArgs({ options: { 'out-dir': { type: 'string', default: 'dist' } } });
const outDir = resolve(root, values['out-dir']);

const scratch = join(
  root,
  'node_modules',
  '.cache',
  `express-app-mcp-build-${randomBytes(6).toString('hex')}`,
);

try {
  await mkdir(scratch, { recursive: true });
  compileEsm(scratch);
  await pointSourceMapsAtSrc(scratch);
  await copyAssets(scratch);
  await bundleCjs(scratch);
  await writeCjsDeclarations(scratch);
  await moveInto(scratch, outDir);
  console.error(`built ${relative(root, outDir) || '.'}/ (ES module, CommonJS and declarations)`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}

function compileEsm(target) {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', target], {
    cwd: root,
    // tsc reports on stdout; sent to stderr (see above).
    stdio: ['ignore', 2, 2],
  });
  if (result.status !== 0) {
    throw new Error(`tsc failed (exit code ${result.status ?? result.signal})`);
  }
}

/**
 * tsc writes each map's `sources` relative to the folder it compiled into (a scratch folder here);
 * rewritten relative to where the map ends up, `dist/<dir>/`, next to the shipped `src/`.
 */
async function pointSourceMapsAtSrc(target) {
  for (const file of await listFiles(target)) {
    if (!file.endsWith('.js.map')) continue;
    const map = JSON.parse(await readFile(join(target, file), 'utf8'));
    const source = join('src', file.replace(/\.js\.map$/, '.ts'));
    map.sources = [
      relative(join('dist', dirname(file)), source)
        .split('\\')
        .join('/'),
    ];
    map.sourceRoot = '';
    await writeFile(join(target, file), JSON.stringify(map));
  }
}

/** Every `assets` folder under `src/`, copied to the same place under the build. */
async function copyAssets(target) {
  const src = join(root, 'src');
  for (const file of await listFiles(src)) {
    if (!file.split('/').slice(0, -1).includes('assets')) continue;
    await mkdir(dirname(join(target, file)), { recursive: true });
    await copyFile(join(src, file), join(target, file));
  }
}

/**
 * In the CommonJS bundle, `import.meta.url` of a module is the URL its ES module twin has in
 * `dist/`, where the files it reads beside itself are (esbuild would leave it empty).
 */
function esmTwinUrl() {
  return {
    name: 'esm-twin-import-meta-url',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const twin = relative(join(root, 'src'), args.path).split('\\').join('/').replace(/\.ts$/, '.js');
        const url = `require('node:url').pathToFileURL(require('node:path').join(__dirname, '..', ${JSON.stringify(twin)})).href`;
        return { contents: source.replaceAll('import.meta.url', `(${url})`), loader: 'ts' };
      });
    },
  };
}

async function bundleCjs(target) {
  await build({
    plugins: [esmTwinUrl()],
    entryPoints: [join(root, 'src', 'index.ts')],
    outfile: join(target, 'cjs', 'index.cjs'),
    bundle: true,
    // Our own sources only: express, zod, lru-cache, knex… are the user's copies, loaded with require().
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: false,
    logLevel: 'warning',
  });
}

/** `dist/x.d.ts` → `dist/cjs/x.d.cts`, with relative `./y.js` specifiers pointing at `./y.cjs`. */
async function writeCjsDeclarations(target) {
  for (const file of await listFiles(target)) {
    if (!file.endsWith('.d.ts') || file.startsWith(`cjs/`)) continue;
    const source = await readFile(join(target, file), 'utf8');
    const rewritten = source.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]*?)\.js\2/g, '$1$2$3.cjs$2');
    const destination = join(target, 'cjs', file.replace(/\.d\.ts$/, '.d.cts'));
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(destination, rewritten);
  }
}

async function moveInto(from, to) {
  const built = await listFiles(from);
  for (const file of built) {
    const destination = join(to, file);
    await mkdir(dirname(destination), { recursive: true });
    try {
      await rename(join(from, file), destination);
    } catch (error) {
      // Another filesystem (a custom --out-dir): a copy, then a rename within the target's own folder.
      if (error.code !== 'EXDEV') throw error;
      const temporary = `${destination}.${randomBytes(4).toString('hex')}.tmp`;
      await copyFile(join(from, file), temporary);
      await rename(temporary, destination);
    }
  }
  const fresh = new Set(built);
  for (const file of await listFiles(to)) {
    if (!fresh.has(file)) await unlink(join(to, file)).catch(() => {});
  }
}

/** Every file under `folder`, as paths relative to it with `/` separators. */
async function listFiles(folder) {
  let entries;
  try {
    entries = await readdir(folder, { recursive: true, withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(folder, join(entry.parentPath ?? entry.path, entry.name))
        .split('\\')
        .join('/'),
    );
}
