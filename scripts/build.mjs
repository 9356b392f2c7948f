#!/usr/bin/env node
/**
 * Builds the published files:
 * - `dist/**.js` + `.d.ts`: the ES module build, by `tsc -p tsconfig.json`, with source maps that
 *   point at `src/**.ts`, which the package ships next to `dist/`, so that a stack trace read
 *   through them names files that exist in the installed package;
 * - `dist/cjs/index.cjs`: the CommonJS build, one file bundled by esbuild from our own sources
 *   only (every package stays an external `require`); `dist/cjs/metrics.cjs`, the CommonJS build of
 *   `express-app-mcp/metrics`, which takes what it shares with the main entry from `index.cjs`; and
 *   one bundle beside it per framework adapter (`dist/cjs/ai-sdk.cjs`, `dist/cjs/langgraph.cjs`), so
 *   that the main entry never loads a framework;
 * - `dist/cjs/**.d.cts`: the declarations again, as CommonJS declarations, so TypeScript users who
 *   `require()` the package get types that describe a CommonJS module;
 * - each `assets` folder of `src/`, copied to the same place in `dist/`: the files a module reads
 *   beside itself (the console page's HTML, style sheet and scripts), as they are. Both builds read
 *   them from there: in the CommonJS bundle, `import.meta.url` is the URL of the same module in the
 *   ES module build;
 * - the command line of the manifest's `bin` (`dist/cli/main.js`, an ES module that starts with its
 *   `#!/usr/bin/env node` line), made executable.
 *
 * Usage: `node scripts/build.mjs [--out-dir <dir>] [--force]` (default `dist`).
 *
 * A build whose inputs (`src/`, the manifest, `tsconfig.json`, this script, the TypeScript and
 * esbuild versions) have not changed since the last build into the same folder is skipped: a
 * stamp under `node_modules/.cache/` records them. `npm start` and the tests build often, and
 * mostly from the same sources. `--force` builds anyway.
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
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const { values } = parseArgs({
  options: { 'out-dir': { type: 'string', default: 'dist' }, force: { type: 'boolean', default: false } },
});
const outDir = resolve(root, values['out-dir']);
const stamp = join(
  root,
  'node_modules',
  '.cache',
  'express-app-mcp-build-stamps',
  createHash('sha256').update(outDir).digest('hex').slice(0, 16),
);
const inputs = await inputsHash();
if (!values.force && (await upToDate())) {
  console.error(`${relative(root, outDir) || '.'}/ is up to date (ES module, CommonJS and declarations)`);
  process.exit(0);
}

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
  await makeBinsExecutable(scratch);
  await moveInto(scratch, outDir);
  await mkdir(dirname(stamp), { recursive: true });
  await writeFile(stamp, inputs);
  console.error(`built ${relative(root, outDir) || '.'}/ (ES module, CommonJS and declarations)`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}

/** A hash of everything the build reads: the sources, the settings, this script and its tools. */
async function inputsHash() {
  const hash = createHash('sha256');
  const files = [
    'package.json',
    'tsconfig.json',
    'scripts/build.mjs',
    ...(await listFiles(join(root, 'src'))).sort().map((file) => `src/${file}`),
  ];
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(await readFile(join(root, file)))
      .update('\0');
  for (const tool of ['typescript', 'esbuild']) {
    hash.update(JSON.parse(await readFile(require.resolve(`${tool}/package.json`), 'utf8')).version);
  }
  return hash.digest('hex');
}

/** Whether the last build into `outDir` had these inputs, and its entry points are still there. */
async function upToDate() {
  const entries = ['index.js', 'index.d.ts', 'cjs/index.cjs', 'cli/main.js'];
  if (!entries.every((entry) => existsSync(join(outDir, entry)))) return false;
  const last = await readFile(stamp, 'utf8').catch(() => '');
  return last === inputs;
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
  const common = {
    bundle: true,
    // Our own sources only: express, zod, lru-cache, knex… are the user's copies, loaded with require().
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: false,
    logLevel: 'warning',
  };
  await build({
    ...common,
    plugins: [esmTwinUrl()],
    entryPoints: [join(root, 'src', 'index.ts')],
    outfile: join(target, 'cjs', 'index.cjs'),
  });
  await build({
    ...common,
    entryPoints: [join(root, 'src', 'metrics', 'index.ts')],
    outfile: join(target, 'cjs', 'metrics.cjs'),
    plugins: [fromMainBundle(join(root, 'src', 'metrics'))],
  });
  // An adapter's bundle carries its own copy of what it imports from our sources, its error
  // classes included: those are told by their `code`, as between the two builds.
  await build({
    ...common,
    plugins: [esmTwinUrl()],
    entryPoints: {
      'ai-sdk': join(root, 'src', 'adapters', 'ai-sdk.ts'),
      langgraph: join(root, 'src', 'adapters', 'langgraph.ts'),
    },
    outdir: join(target, 'cjs'),
    outExtension: { '.js': '.cjs' },
  });
}

/**
 * A subpath entry's imports of the package's other modules are taken from the main CommonJS bundle
 * (`./index.cjs`, which exports them) rather than bundled again: a second copy of a class such as
 * `ConfigurationError` would fail the host's `instanceof`. Such an entry imports public exports only.
 */
function fromMainBundle(folder) {
  return {
    name: 'from-main-bundle',
    setup(esbuild) {
      esbuild.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const path = resolve(args.resolveDir, args.path);
        if (path.startsWith(`${folder}/`) || path.startsWith(`${folder}\\`)) return undefined;
        return { path: './index.cjs', external: true };
      });
    },
  };
}

/** `dist/x.d.ts` → `dist/cjs/x.d.cts`, with relative `./y.js` specifiers pointing at `./y.cjs`. */
async function writeCjsDeclarations(target) {
  for (const file of await listFiles(target)) {
    // The command line is an ES module only: nothing `require()`s it.
    if (!file.endsWith('.d.ts') || file.startsWith(`cjs/`) || file.startsWith('cli/')) continue;
    const source = await readFile(join(target, file), 'utf8');
    const rewritten = source.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]*?)\.js\2/g, '$1$2$3.cjs$2');
    const destination = join(target, 'cjs', file.replace(/\.d\.ts$/, '.d.cts'));
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(destination, rewritten);
  }
}

/** Each `bin` of the manifest, built under `dist/`: it must start with a shebang, and it is made executable. */
async function makeBinsExecutable(target) {
  const { bin = {} } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  for (const path of Object.values(bin)) {
    const file = join(target, relative('dist', path));
    const source = await readFile(file, 'utf8');
    if (!source.startsWith('#!/usr/bin/env node\n'))
      throw new Error(`${path} does not start with #!/usr/bin/env node`);
    await chmod(file, 0o755);
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
