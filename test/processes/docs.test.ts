/**
 * The documentation holds together: every relative link of the README and the guides resolves, to
 * a file and to a heading (checked by scripts/check-links.mjs, which is itself tested here on broken
 * links), and `npm run docs` builds the API reference from the JSDoc.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLinks, documents, headingAnchors } from '../../scripts/check-links.mjs';
import { cleanEnv, ROOT } from '../helpers/packed.js';

const run = promisify(execFile);

describe('the links of the README and the guides', () => {
  it('every relative link resolves, to a file and to a heading', async () => {
    expect(await documents(ROOT)).toEqual(expect.arrayContaining(['README.md', 'docs/http-contract.md']));
    expect(await checkLinks(ROOT)).toEqual([]);
  });

  describe('the checker', () => {
    let root: string;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'express-app-mcp-links-'));
      await mkdir(join(root, 'docs'));
      await writeFile(
        join(root, 'README.md'),
        [
          '# Title',
          '',
          'See [the guide](docs/guide.md), [its setup](docs/guide.md#set-it-up-in-2-steps) and',
          "[a section](#what-it-is) of this page, [a missing one](#what-it-isn't-yet),",
          '[a missing guide](docs/missing.md), [a missing heading](docs/guide.md#nowhere),',
          '[the site](https://example.com/nowhere.md) and `[code](not-a-link.md)`.',
          '',
          '## What it is',
          '',
          '```md',
          '[in a code block](also-not-a-link.md)',
          '```',
          '',
          '[ref]: docs/gone.md',
        ].join('\n'),
      );
      await writeFile(
        join(root, 'docs', 'guide.md'),
        '# The guide\n\n## Set it up, in 2 steps\n\nBack to [the README](../README.md#title).\n',
      );
    });

    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('reports each broken link with its file, line and reason, and nothing else', async () => {
      expect(await checkLinks(root)).toEqual([
        "README.md:4: #what-it-isn't-yet (no heading with the anchor #what-it-isn't-yet in README.md)",
        'README.md:5: docs/missing.md (no such file: docs/missing.md)',
        'README.md:5: docs/guide.md#nowhere (no heading with the anchor #nowhere in docs/guide.md)',
        'README.md:14: docs/gone.md (no such file: docs/gone.md)',
      ]);
    });

    it("makes a heading's anchor as GitHub does", () => {
      const anchors = headingAnchors(
        [
          '## Long runs: progress, heartbeats and proxies',
          '### `runApp`, mode by mode',
          '## SQLite: one process, and locks',
          '## Options',
          '## Options',
          '## Per-user access with [OAuth](https://oauth.net)',
        ].join('\n'),
      );
      expect([...anchors]).toEqual([
        'long-runs-progress-heartbeats-and-proxies',
        'runapp-mode-by-mode',
        'sqlite-one-process-and-locks',
        'options',
        'options-1',
        'per-user-access-with-oauth',
      ]);
    });
  });
});

describe('npm run docs', () => {
  let out: string;

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('builds the API reference from the JSDoc, for the main entry and express-app-mcp/metrics', {
    timeout: 300_000,
  }, async () => {
    out = await mkdtemp(join(tmpdir(), 'express-app-mcp-api-'));
    const { stdout } = await run('npm', ['run', 'docs', '--', '--out', out], {
      cwd: ROOT,
      env: cleanEnv(),
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain(`html generated at`);
    for (const page of [
      'index.html',
      'functions/index.mcpServer.html',
      'functions/metrics.mcpMetrics.html',
    ]) {
      expect(existsSync(join(out, page)), page).toBe(true);
    }
    // The reference carries the JSDoc: an option's documentation, with its default.
    const page = await readFile(join(out, 'functions', 'index.mcpServer.html'), 'utf8');
    expect(page).toContain('An Express Router (Express 4 and 5)');
    // AppRun is an interface with its members listed, each with its JSDoc, not an alias of a generic.
    const appRun = await readFile(join(out, 'interfaces', 'index.AppRun.html'), 'utf8');
    for (const member of ['app', 'inputs', 'query', 'signal', 'request', 'caller', 'canask', 'ask']) {
      expect(appRun, member).toContain(`id="${member}"`);
    }
    expect(appRun).toContain('Whether this call can reach a person');
  });
});
