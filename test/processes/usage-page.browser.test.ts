/// <reference lib="dom" />
/**
 * The console page's usage chart and Activity view (docs/usage.md) in a real browser: headless
 * Chromium driven by playwright-core, against a console served in this process from the sources.
 * A server's last 24 hours of calls and errors are one bar per hour, with its top callers; the
 * Activity view lists the console's writes, newest first, and loads more with a button.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryServerStore } from '../../src/index.js';
import type { ServerStore } from '../../src/store/types.js';
import { chromiumMissing, launchChromium, openPage, VIEWPORTS, type Watched } from '../helpers/browser.js';
import { Apps, consoleAs, createHost, TENANT_A } from '../helpers/console-host.js';
import { type Host, hostVariants, serveApp } from '../helpers/hosts.js';
import { skippedTitle } from '../helpers/postgres-skips.js';

const missing = chromiumMissing();

const TITLE = 'the usage chart and the Activity view in Chromium';
describe.skipIf(missing !== undefined)(missing === undefined ? TITLE : skippedTitle(TITLE, missing), () => {
  let host: Host;
  let browser: Browser;
  let watched: Watched;
  let page: Page;
  let store: ServerStore;
  const apps = new Apps();
  const hour = Math.floor(Date.now() / 3_600_000) * 3600;

  beforeAll(async () => {
    store = memoryServerStore();
    const { app } = createHost(store, apps, { listApps: apps.list, page: true });
    host = await serveApp(app, hostVariants[0]!);
    const editor = consoleAs(app, 'editor-a');
    const stats = apps.add(TENANT_A, { name: 'Text Stats' });
    const server = (await editor.publish(stats.id, { parameters: {} })).body as { id: string };
    // Sixty writes, so that the Activity view has more than one page.
    for (let index = 0; index < 59; index++) {
      await editor.update(stats.id, { id: server.id, parameters: {}, description: `Version ${index}` });
    }
    const caller = (kind: 'key' | 'code' | 'oauth', id = '', name: string | null = null) => ({
      kind,
      id,
      name,
    });
    await store.usage!.addUsage([
      {
        serverId: server.id,
        hour,
        tool: 'Text_Stats',
        caller: caller('key', 'k1', 'Nightly job'),
        calls: 30,
        errors: 3,
        durationMs: 900,
        tasks: 0,
        asks: 0,
      },
      {
        serverId: server.id,
        hour,
        tool: 'Text_Stats',
        caller: caller('code'),
        calls: 10,
        errors: 0,
        durationMs: 100,
        tasks: 0,
        asks: 0,
      },
      {
        serverId: server.id,
        hour: hour - 5 * 3600,
        tool: 'Text_Stats',
        caller: caller('oauth', 'alice'),
        calls: 8,
        errors: 4,
        durationMs: 80,
        tasks: 0,
        asks: 0,
      },
      // Two days ago: outside the chart.
      {
        serverId: server.id,
        hour: hour - 48 * 3600,
        tool: 'Text_Stats',
        caller: caller('code'),
        calls: 99,
        errors: 99,
        durationMs: 1,
        tasks: 0,
        asks: 0,
      },
    ]);
    browser = await launchChromium();
    watched = await openPage(browser, VIEWPORTS.desktop);
    page = watched.page;
    await page.goto(`${host.url}/console/api/`);
    await page.getByLabel('Console token').fill('editor-a');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Apps' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it("a server's panel draws 24 hourly bars of calls and errors, and its top callers", async () => {
    await page
      .getByRole('navigation', { name: 'Apps' })
      .getByRole('link', { name: /^Text Stats/ })
      .click();
    const usage = page.getByRole('region', { name: 'Usage, last 24 hours' });
    const chart = usage.getByRole('img', { name: '48 calls, 7 errors in the last 24 hours' });
    await chart.waitFor();
    expect(await usage.locator('.usage-hour').count()).toBe(24);
    // The last bar is this hour: its full height the most calls of the day.
    const last = usage.locator('.usage-hour').last();
    expect(await last.locator('title').textContent()).toBe(
      `${new Date(hour * 1000).toISOString().slice(11, 13)}:00 UTC: 40 calls, 3 errors`,
    );
    expect(await last.locator('.usage-calls').getAttribute('height')).toBe('58');
    const fiveHoursAgo = usage.locator(`.usage-hour[data-hour="${hour - 5 * 3600}"]`);
    expect(await fiveHoursAgo.locator('.usage-errors').getAttribute('height')).toBe(String((4 / 40) * 58));
    const callers = usage.getByRole('table', { name: 'Top callers' });
    const rows = await callers.locator('tbody tr').allInnerTexts();
    expect(rows.map((row) => row.split('\t'))).toEqual([
      ['Key Nightly job', '30', '3'],
      ['Holder of the URL', '10', '0'],
      ['User alice', '8', '4'],
    ]);
    expect(watched.problems).toEqual([]);
  });

  it('the Activity view lists the console writes newest first, and "Load more" reads on', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity' }).click();
    const log = page.getByRole('region', { name: 'Activity' });
    await log.getByRole('heading', { name: 'Activity' }).waitFor();
    const rows = log.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    const first = (await rows.first().allInnerTexts())[0]!.split('\t');
    expect(first.slice(1, 3)).toEqual(['—', 'Edited a server']);
    expect(first[3]).toContain('Version 58');
    await log.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(60);
    const last = (await rows.last().allInnerTexts())[0]!.split('\t');
    expect(last[2]).toBe('Published a server');
    expect(await log.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(watched.problems).toEqual([]);
  });
});
