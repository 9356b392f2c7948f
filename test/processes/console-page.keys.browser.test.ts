/// <reference lib="dom" />
/**
 * The console page's Keys panel (docs/keys.md, "The console page") in headless Chromium: a person
 * turns caller keys on for a server, makes a key (its secret shown once, with Copy and snippets
 * that send it in a header), the key works with an MCP request and the URL alone no longer does;
 * the person rotates it and revokes it. A store that keeps codes hashed shows no URL after the
 * reply that made it, and says so. The page stays under 60 KB gzipped.
 */
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostApp, knexServerStore, mcpConsole, mcpServer } from '../../src/index.js';
import { chromiumMissing, launchChromium, openPage, VIEWPORTS } from '../helpers/browser.js';
import { createMigrated, databases, type TestDatabase } from '../helpers/databases.js';
import { type Host, hostVariants, serveApp } from '../helpers/hosts.js';
import { skippedTitle } from '../helpers/postgres-skips.js';

const missing = chromiumMissing();
const sqlite = databases.find((kind) => kind.name === 'sqlite')!;
const APPS: HostApp[] = [
  { id: 'notes', name: 'Notes', mode: 'workflow', inputForm: [{ type: 'text-input', variable: 'text' }] },
  { id: 'hashed', name: 'Hashed', mode: 'workflow', inputForm: [] },
];

const TITLE = 'the Keys panel of the console page, in Chromium';
describe.skipIf(missing)(missing ? skippedTitle(TITLE, missing) : TITLE, () => {
  let db: TestDatabase;
  let host: Host;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    let knex: Awaited<ReturnType<typeof createMigrated>>['knex'];
    ({ db, knex } = await createMigrated(sqlite));
    const store = knexServerStore(knex, { hashCodes: true });
    const loadApp = (id: string) => APPS.find((app) => app.id === id) ?? null;
    const app = express();
    app.use(
      '/console/api',
      mcpConsole({
        store,
        loadApp,
        listApps: () => APPS,
        authorize: () => ({ tenantId: 't', canEdit: true }),
        page: true,
      }),
    );
    app.use(
      mcpServer({
        resolveServer: store.resolver(loadApp),
        runApp: (run) => ({ outputs: { by: run.caller } }),
      }),
    );
    host = await serveApp(app, hostVariants[0]!);
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, VIEWPORTS.desktop));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await db?.destroy();
  });

  /** An MCP request to `url`, with `key` as its bearer when given: the HTTP status. */
  const callWith = async (url: string, key?: string) =>
    (
      await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'Notes', arguments: { text: 'x' } },
        }),
      })
    ).status;

  const confirm = async (name: string) => {
    await page.getByRole('dialog').getByRole('button', { name }).click();
  };

  it('turns keys on, makes a key shown once with snippets, rotates it with a grace and revokes it', {
    timeout: 60_000,
  }, async () => {
    await page.goto(`${host.url}/console/api/#/apps/notes`);
    await page.getByRole('button', { name: 'Publish' }).click();
    // Publishing is the one reply that carries the code: the URL is shown now.
    const url = await page.getByRole('textbox', { name: 'MCP server URL' }).inputValue();
    expect(url).toMatch(/\/mcp\/server\/[A-Za-z0-9]{16}\/mcp$/);
    await page.getByRole('button', { name: 'Require caller keys' }).click();
    await page.getByRole('region', { name: 'Caller keys' }).getByText('No keys yet').waitFor();
    expect(await callWith(url)).toBe(401);

    await page.getByRole('textbox', { name: 'Key name' }).fill('laptop');
    await page.getByRole('button', { name: 'Make key' }).click();
    const secret = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(secret).toMatch(/^mcpk_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByRole('button', { name: 'Copy key' }).count()).toBe(1);
    const snippet = async (tab: string) => {
      await page.getByRole('tab', { name: tab }).click();
      return page.getByRole('textbox', { name: `${tab} key snippet` }).inputValue();
    };
    expect(JSON.parse(await snippet('Claude Desktop'))).toEqual({
      mcpServers: {
        notes: { command: 'npx', args: ['mcp-remote', url, '--header', `Authorization: Bearer ${secret}`] },
      },
    });
    expect(await snippet('Claude Code')).toBe(
      `claude mcp add --transport http notes ${url} --header "Authorization: Bearer ${secret}"`,
    );
    expect(JSON.parse(await snippet('Cursor'))).toEqual({
      mcpServers: { notes: { url, headers: { Authorization: `Bearer ${secret}` } } },
    });
    expect(JSON.parse(await snippet('VS Code'))).toEqual({
      servers: { notes: { type: 'http', url, headers: { Authorization: `Bearer ${secret}` } } },
    });
    expect(await callWith(url, secret)).toBe(200);
    const keys = page.getByRole('region', { name: 'Caller keys' });
    await keys.getByText(/laptop.*Active · last used never/).waitFor();

    // Rotating with a grace: the new secret is shown once; the old one still works.
    await page
      .getByRole('combobox', { name: 'Grace for the old secret when rotating' })
      .selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Rotate laptop' }).click();
    await confirm('Rotate key');
    await keys.getByText(/Rotated: the old secret works until/).waitFor();
    const rotated = await page.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(rotated).not.toBe(secret);
    expect(await callWith(url, rotated)).toBe(200);
    expect(await callWith(url, secret)).toBe(200);

    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    await confirm('Revoke key');
    await keys.getByText(/laptop.*Revoked/).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke laptop' }).count()).toBe(0);
    expect(await callWith(url, rotated)).toBe(401);

    // Seen again, the server shows no URL: the code is kept hashed.
    await page.reload();
    await page.getByText(/is kept hashed: its URL was shown once/).waitFor();
    expect(await page.getByRole('textbox', { name: 'MCP server URL' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('the page and all its assets stay under 60 KB gzipped', async () => {
    const folder = new URL('../../src/console/page/assets/', import.meta.url);
    let total = 0;
    for (const name of await readdir(folder)) total += gzipSync(await readFile(new URL(name, folder))).length;
    expect(total).toBeLessThan(60 * 1024);
  });
});
