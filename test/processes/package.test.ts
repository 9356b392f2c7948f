/**
 * What npm publishes, read from the packed tarball itself: the license and changelog, the
 * repository metadata registries show, a manifest that runs nothing when installed (or when
 * installed from git), source maps whose sources are inside the package, and runtime dependencies
 * that an application can share with its own copies.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/versions.js';
import { packedPackage, run } from '../helpers/packed.js';

const REPOSITORY = 'https://github.com/express-app-mcp/express-app-mcp';

interface Manifest {
  name: string;
  version: string;
  license: string;
  homepage?: string;
  repository?: { type: string; url: string };
  bugs?: { url: string };
  scripts?: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

describe('the published package (npm pack)', () => {
  let work: string;
  /** The tarball's `package/` folder, unpacked. */
  let root: string;
  let files: string[];
  let manifest: Manifest;
  let packOutput: string;

  beforeAll(async () => {
    const packed = await packedPackage();
    files = packed.files;
    packOutput = packed.packOutput;
    work = await mkdtemp(join(tmpdir(), 'express-app-mcp-package-'));
    await run('tar', ['-xzf', packed.tarball, '-C', work]);
    root = join(work, 'package');
    manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  }, 300_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('npm pack --json prints the JSON alone: its prepack build writes nothing on stdout', () => {
    const parsed = JSON.parse(packOutput) as { id: string; files: { path: string }[] }[];
    expect(parsed).toHaveLength(1);
    expect(parsed[0]?.id).toBe(`express-app-mcp@${manifest.version}`);
    // The build ran as prepack: what it built is in the tarball.
    expect(parsed[0]?.files.map((file) => file.path)).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/cjs/index.cjs']),
    );
    expect(packOutput.trimStart().startsWith('[')).toBe(true);
  });

  it('carries the MIT license, as the manifest says', async () => {
    expect(manifest.license).toBe('MIT');
    const license = await readFile(join(root, 'LICENSE'), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Permission is hereby granted, free of charge');
  });

  it('carries a changelog with a dated release section for its version, linked', async () => {
    const changelog = await readFile(join(root, 'CHANGELOG.md'), 'utf8');
    const version = manifest.version.replaceAll('.', '\\.');
    expect(changelog).toMatch(new RegExp(`^## \\[${version}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    expect(changelog).toMatch(
      new RegExp(`^\\[${version}\\]: https://github\\.com/express-app-mcp/express-app-mcp/`, 'm'),
    );
  });

  it('reports the version of its manifest as its serverInfo version', () => {
    expect(PACKAGE_VERSION).toBe(manifest.version);
  });

  it('names its repository, issue tracker and home page', () => {
    expect({ homepage: manifest.homepage, repository: manifest.repository, bugs: manifest.bugs }).toEqual({
      homepage: `${REPOSITORY}#readme`,
      repository: { type: 'git', url: `git+${REPOSITORY}.git` },
      bugs: { url: `${REPOSITORY}/issues` },
    });
  });

  it('has no script that npm runs on install, nor a prepare script for a git install', () => {
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare'];
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => lifecycle.includes(name))).toEqual([]);
  });

  it('declares its runtime dependencies with caret ranges, so that applications share their copies', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['cors', 'dataloader', 'lru-cache', 'zod']);
    for (const [name, range] of Object.entries(manifest.dependencies)) {
      expect(`${name}@${range}`).toMatch(/@\^\d+\.\d+\.\d+$/);
    }
  });

  it('declares @types/express as an optional peer, for TypeScript users', () => {
    expect(manifest.peerDependencies['@types/express']).toBe('^4.17.0 || ^5.0.0');
    expect(manifest.peerDependenciesMeta['@types/express']).toEqual({ optional: true });
  });

  it('every built file links a source map inside the package, whose sources are in the package too', async () => {
    const scripts = files.filter((file) => file.endsWith('.js') || file.endsWith('.cjs'));
    expect(scripts.length).toBeGreaterThan(10);
    const missing: string[] = [];
    let maps = 0;
    for (const file of scripts) {
      const text = await readFile(join(root, file), 'utf8');
      const link = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
      if (link === undefined) continue; // no map at all is fine: nothing points outside
      maps++;
      const mapFile = posix.join(posix.dirname(file), link);
      if (!files.includes(mapFile)) {
        missing.push(`${file} -> ${mapFile}`);
        continue;
      }
      const map = JSON.parse(await readFile(join(root, mapFile), 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
      };
      for (const source of map.sources) {
        const resolved = posix.join(posix.dirname(mapFile), map.sourceRoot ?? '', source);
        if (!files.includes(resolved) || !existsSync(join(root, resolved))) {
          missing.push(`${mapFile} -> ${resolved}`);
        }
      }
    }
    expect(missing).toEqual([]);
    // The ES module build has its maps (the CommonJS bundle has none, and the console page's
    // scripts under assets/ are served to browsers as they are written: they are their own source).
    expect(maps).toBe(scripts.filter((file) => file.endsWith('.js') && !file.includes('/assets/')).length);
  });
});
