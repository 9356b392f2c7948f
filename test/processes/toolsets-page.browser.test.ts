/// <reference lib="dom" />
/**
 * The console page's Toolsets view (docs/toolsets.md) in a real browser: headless Chromium driven
 * by playwright-core, against the example app started with `npm start`, which publishes "All demo
 * apps" and "Writing tools". A person opens a toolset, copies its URL, tries one of its tools,
 * renames a tool, rotates the code, and makes a toolset from checkboxes, finding every control by
 * its role and name.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, type Watched } from '../helpers/browser.js';
import { signIn, startExamplePage } from '../helpers/example-page.js';
import { skippedTitle } from '../helpers/postgres-skips.js';
import {
  CONSOLE_TOKEN,
  type ExampleDatabase,
  type Launched,
  START_TIMEOUT_MS,
  stopAll,
} from '../helpers/processes.js';

const missing = chromiumMissing();

/** The tools a URL lists, as an MCP client sees them, or the HTTP status when it answers none. */
async function toolNames(url: string): Promise<string[] | number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  if (response.status !== 200) return response.status;
  const body = (await response.json()) as { result: { tools: { name: string }[] } };
  return body.result.tools.map((tool) => tool.name);
}

/** The toolsets the start-up message prints, by name. */
function toolsetUrls(output: string): Map<string, string> {
  const section = output.split('Toolsets (several apps behind one URL')[1]?.split('\n\n')[0] ?? '';
  return new Map(
    [...section.matchAll(/^ {2}(\S.*)\n {4}(http:\/\/\S+)$/gm)].map((match) => [match[1]!, match[2]!]),
  );
}

const TITLE = 'the Toolsets view of the console page in Chromium, on the example app';
describe.skipIf(missing !== undefined)(missing === undefined ? TITLE : skippedTitle(TITLE, missing), () => {
  let database: ExampleDatabase;
  let app: Launched;
  let browser: Browser;
  let page: Page;
  let base: string;
  let urls: Map<string, string>;
  const tryIt = () => page.getByRole('region', { name: 'Try it' });
  const urlField = () => page.getByLabel('MCP server URL');

  /** Opens a toolset in a fresh document, so that nothing of the view before it is left to act on. */
  async function openToolset(name: string) {
    const listed = await fetch(`${base}/console/api/toolsets`, {
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    });
    const { data } = (await listed.json()) as { data: { id: string; name: string }[] };
    const id = data.find((toolset) => toolset.name === name)!.id;
    await page.goto(`${base}/console/api/#/toolsets/${id}`);
    await page.reload();
    await page.getByRole('heading', { level: 2, name }).waitFor();
    await page.getByRole('region', { name: 'Try it' }).waitFor();
  }

  beforeAll(async () => {
    let desktop: Watched;
    ({ app, base, browser, desktop } = await startExamplePage((created) => {
      database = created;
    }));
    urls = toolsetUrls(app.output());
    page = desktop.page;
    await signIn(page, base);
  }, START_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await browser?.close();
    await stopAll();
    await database?.destroy();
  });

  it('the start-up message prints the two toolsets, and the Toolsets link lists them', async () => {
    expect([...urls.keys()]).toEqual(['All demo apps', 'Writing tools']);
    expect(await toolNames(urls.get('Writing tools')!)).toEqual([
      'Title_Case',
      'Tagline_Writer',
      'Text_Stats',
    ]);
    const everything = await toolNames(urls.get('All demo apps')!);
    expect(everything).toContain('Expense_Approval');
    // Who Am I is published for signed-in users only: no code reaches it through a toolset.
    expect(everything).not.toContain('Who_Am_I');
    await page.getByRole('link', { name: 'Toolsets' }).click();
    const links = page.getByRole('navigation', { name: 'Toolsets' }).getByRole('link');
    await links.first().waitFor();
    expect(await links.locator('.app-name').allTextContents()).toEqual(['All demo apps', 'Writing tools']);
  });

  it('shows a toolset’s URL in a field labelled "MCP server URL" and copies it, with client snippets', async () => {
    await openToolset('Writing tools');
    const url = urls.get('Writing tools')!;
    await expect.poll(() => urlField().inputValue()).toBe(url);
    await page.getByRole('button', { name: 'Copy URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    await page.getByRole('tab', { name: 'Claude Desktop' }).click();
    const snippet = await page.getByRole('textbox', { name: 'Claude Desktop snippet' }).inputValue();
    expect(JSON.parse(snippet)).toEqual({
      mcpServers: { 'writing-tools': { command: 'npx', args: ['-y', 'mcp-remote', url] } },
    });
  });

  it('shows the toolset’s caller keys and its usage of the last 24 hours, as a server’s page does', async () => {
    await openToolset('Writing tools');
    const keys = page.getByRole('region', { name: 'Caller keys' });
    await keys.waitFor();
    expect(await keys.getByRole('button', { name: 'Require caller keys' }).isVisible()).toBe(true);
    expect(await page.getByRole('region', { name: 'Usage, last 24 hours' }).isVisible()).toBe(true);
  });

  it('Try it calls any of the toolset’s tools, picked from the list', async () => {
    await openToolset('Writing tools');
    const pick = tryIt().getByRole('combobox', { name: 'Tool' });
    await pick.waitFor();
    expect(await pick.locator('option').allTextContents()).toEqual([
      'Title_Case',
      'Tagline_Writer',
      'Text_Stats',
    ]);
    await pick.selectOption('Title_Case');
    await tryIt().getByRole('textbox', { name: /^text/ }).fill('a tale of two cities');
    await tryIt().getByRole('button', { name: 'Call' }).click();
    await tryIt().locator('.result .text').first().waitFor();
    expect(await tryIt().locator('.result .text').first().textContent()).toBe('A Tale Of Two Cities');
  });

  it('renames a tool: the clients list it under its new name; a name clients refuse is named in an alert', async () => {
    await openToolset('Writing tools');
    await page.getByLabel('Tool name for Title Case').fill('has space');
    await page.getByRole('button', { name: 'Save tool names' }).click();
    await page.getByRole('alert').filter({ hasText: 'apps.0.tool_name must be 1 to 128' }).waitFor();
    await page.getByLabel('Tool name for Title Case').fill('title');
    await page.getByRole('button', { name: 'Save tool names' }).click();
    await expect
      .poll(() => toolNames(urls.get('Writing tools')!))
      .toEqual(['title', 'Tagline_Writer', 'Text_Stats']);
    // Nothing but the name changed: the other fields still take their app server's.
    const listed = await fetch(`${base}/console/api/toolsets`, {
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    });
    const { data } = (await listed.json()) as { data: { name: string; apps: unknown[] }[] };
    const inherited = { description: null, parameters: null, annotations: null, task_support: null };
    expect(data.find((toolset) => toolset.name === 'Writing tools')!.apps).toEqual([
      { app_id: 'title-case', tool_name: 'title', ...inherited },
      { app_id: 'tagline-writer', tool_name: null, ...inherited },
      { app_id: 'text-stats', tool_name: null, ...inherited },
    ]);
  });

  it('Rotate asks first; confirmed, the toolset gets a new URL and the old one stops working', async () => {
    await openToolset('Writing tools');
    const before = await urlField().inputValue();
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the code?' })
      .getByRole('button', { name: 'Rotate' })
      .click();
    await expect.poll(() => urlField().inputValue()).not.toBe(before);
    expect(await toolNames(before)).toBe(404);
    expect(await toolNames(await urlField().inputValue())).toEqual(['title', 'Tagline_Writer', 'Text_Stats']);
  });

  it('makes a toolset from checkboxes of the apps', async () => {
    await page.goto(`${base}/console/api/#/toolsets`);
    await page.getByRole('heading', { name: 'New toolset' }).waitFor();
    await page.getByLabel('Toolset name').fill('Picked');
    await page.getByRole('checkbox', { name: 'Text Stats', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Calculator Agent', exact: true }).check();
    await page.getByRole('button', { name: 'Create toolset' }).click();
    await page.getByRole('heading', { level: 2, name: 'Picked' }).waitFor();
    expect(await toolNames(await urlField().inputValue())).toEqual(['Text_Stats', 'Calculator_Agent']);
  });
});
