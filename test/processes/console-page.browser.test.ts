/// <reference lib="dom" />
/**
 * The console page (docs/console.md, "The console page") in a real browser: headless Chromium from
 * Debian's `chromium` package, driven by playwright-core, against the example app started the way
 * the README tells a newcomer (`npm start` with `PORT` and `CONSOLE_TOKEN`). A person signs in with
 * the console token, sees and copies a server's URL, rotates its code, deactivates and activates it,
 * tries its tool, edits it, and manages the tool providers, finding every control by its role and
 * name, and reaches them with the Tab key. The screenshots in docs/images/ are made here
 * (`npm run screenshots`; a plain test run writes them to a temporary folder).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textStats } from '../../example-app/apps.js';
import {
  chromiumMissing,
  focusedName,
  openPage,
  pngSize,
  screenshot,
  VIEWPORTS,
  type Watched,
} from '../helpers/browser.js';
import { signIn, startExamplePage } from '../helpers/example-page.js';
import { skippedTitle } from '../helpers/postgres-skips.js';
import { PINNED_INSPECTOR } from '../helpers/printed-commands.js';
import {
  CONSOLE_TOKEN,
  type ExampleDatabase,
  type Launched,
  parseStartup,
  START_TIMEOUT_MS,
  type Started,
  stopAll,
} from '../helpers/processes.js';
import { PNG_BASE64 } from '../helpers/sample-files.js';

const missing = chromiumMissing();

/** An element's text, as the page wrote it. */
const textOf = async (locator: Locator) => (await locator.textContent()) ?? '';

/** What an MCP client gets from a server URL: the HTTP status and the JSON-RPC reply. */
async function initialize(url: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'check', version: '1' },
      },
    }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  return { status: response.status, error: body.error?.message };
}

interface ListedTool {
  description: string;
  inputSchema: { properties: Record<string, { description?: string }> };
  annotations?: Record<string, boolean>;
}

/** The tool a server's URL offers, as an MCP client lists it. */
async function listedTool(url: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  const body = (await response.json()) as { result: { tools: ListedTool[] } };
  return body.result.tools[0]!;
}

const TITLE = 'the console page in Chromium, on the example app started with npm start';
describe.skipIf(missing !== undefined)(missing === undefined ? TITLE : skippedTitle(TITLE, missing), () => {
  let database: ExampleDatabase;
  let app: Launched;
  let started: Started;
  let browser: Browser;
  let desktop: Watched;
  let page: Page;
  let base: string;
  const consoleUrl = () => `${base}/console/api/`;
  const urlOf = (name: string) => started.urls.get(name)!;
  const serverUrlField = () => page.getByLabel('MCP server URL');
  const tryIt = () => page.getByRole('region', { name: 'Try it' });
  const connection = () => page.getByRole('region', { name: 'Connection' });

  /** Opens an app from the list, as a person clicks it. */
  async function openApp(name: string) {
    await page
      .getByRole('navigation', { name: 'Apps' })
      .getByRole('link', { name: new RegExp(`^${name}`) })
      .click();
    await expect.poll(() => page.getByRole('heading', { level: 2, name }).count()).toBe(1);
  }

  beforeAll(async () => {
    ({ app, base, browser, desktop } = await startExamplePage((created) => {
      database = created;
    }));
    started = parseStartup(app.output());
    page = desktop.page;
  }, START_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await browser?.close();
    await stopAll();
    await database?.destroy();
  });

  it('the start-up message names the page, which asks for the console token and then lists the apps', async () => {
    expect(app.output()).toContain(`Console page (sign in with the console token): ${consoleUrl()}`);
    const reply = await page.goto(`${base}/console/api`);
    // Read from the console's root with its slash, where the page's own files are addressed from.
    expect(page.url()).toBe(consoleUrl());
    expect(reply?.status()).toBe(200);
    expect(reply?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in' }).count()).toBe(1);

    await page.getByLabel('Console token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That token was not accepted' }).waitFor();

    await page.getByLabel('Console token').fill(CONSOLE_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const list = page.getByRole('navigation', { name: 'Apps' }).getByRole('link');
    await list.first().waitFor();
    const demoApps = (await (await fetch(`${base}/apps`)).json()) as { name: string }[];
    const names = await list.locator('.app-name').allTextContents();
    expect(names).toEqual([...demoApps.map(({ name }) => name), 'Who Am I']);
  });

  it('keeps the token for the tab: a reload stays signed in, a new tab asks again', async () => {
    await page.reload();
    await page.getByRole('navigation', { name: 'Apps' }).waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([CONSOLE_TOKEN]);
    const other = await openPage(browser, VIEWPORTS.desktop);
    await other.page.goto(consoleUrl());
    await expect.poll(() => other.page.getByLabel('Console token').count()).toBe(1);
    await other.context.close();
  });

  it('shows the server URL, as printed at start, in a field labelled "MCP server URL", and copies it', async () => {
    await openApp('Text Stats');
    await expect.poll(() => serverUrlField().inputValue()).toBe(urlOf('Text Stats'));
    await page.getByRole('button', { name: 'Copy URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(urlOf('Text Stats'));
    const png = await screenshot(page, 'console-app-1440.png');
    expect(pngSize(png)).toEqual(VIEWPORTS.desktop);
  });

  it('offers ready snippets for Claude Desktop, Claude Code, Cursor, VS Code, the Inspector and the code in a header', async () => {
    const url = urlOf('Text Stats');
    const code = url.split('/').at(-2)!;
    const snippet = async (tab: string) => {
      await page.getByRole('tab', { name: tab }).click();
      return page.getByRole('textbox', { name: `${tab} snippet` }).inputValue();
    };
    expect(JSON.parse(await snippet('Claude Desktop'))).toEqual({
      mcpServers: { 'text-stats': { command: 'npx', args: ['-y', 'mcp-remote', url] } },
    });
    expect(await snippet('Claude Code')).toBe(`claude mcp add --transport http text-stats ${url}`);
    expect(JSON.parse(await snippet('Cursor'))).toEqual({ mcpServers: { 'text-stats': { url } } });
    expect(JSON.parse(await snippet('VS Code'))).toEqual({
      servers: { 'text-stats': { type: 'http', url } },
    });
    // test/processes/printed-commands.test.ts runs these as printed.
    expect(await snippet('Inspector')).toBe(
      `npx -y ${PINNED_INSPECTOR} --cli ${url} --transport http --method tools/list`,
    );
    const header = await snippet('Code in header');
    expect(header).toContain(
      `"args": ["-y", "mcp-remote", "${base}/mcp/server/mcp", "--header", "Authorization:\${MCP_AUTH}"]`,
    );
    expect(header).toContain(`"MCP_AUTH": "Bearer ${code}"`);
    expect(header).toContain(`--header "Authorization: Bearer ${code}"`);
    expect(header).toContain(`"headers": {\n        "Authorization": "Bearer ${code}"`);
  });

  it('Rotate asks first; confirmed, the server gets a new URL and the old one stops working', async () => {
    const before = await serverUrlField().inputValue();
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the code?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await serverUrlField().inputValue()).toBe(before);

    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
    await expect.poll(() => serverUrlField().inputValue()).not.toBe(before);
    const after = await serverUrlField().inputValue();
    expect(after).toMatch(new RegExp(`^${base}/mcp/server/[A-Za-z0-9]{16}/mcp$`));
    expect(await initialize(before)).toEqual({ status: 404, error: 'MCP server not found' });
    expect(await initialize(after)).toEqual({ status: 200, error: undefined });
    started.urls.set('Text Stats', after);
  });

  it('Deactivate makes the URL answer "not active" and Activate brings it back', async () => {
    const url = urlOf('Text Stats');
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await connection().getByText('Inactive', { exact: true }).waitFor();
    expect(await initialize(url)).toEqual({ status: 404, error: 'MCP server is not active' });
    expect(await page.getByRole('button', { name: 'Try it' }).isDisabled()).toBe(true);
    // The focus stays on the control that was used, now named for what it does next.
    expect(await focusedName(page)).toBe('Activate');
    const listed = page.getByRole('navigation', { name: 'Apps' }).getByRole('link', { name: /^Text Stats/ });
    expect(await textOf(listed)).toContain('Inactive');

    await page.getByRole('button', { name: 'Activate' }).click();
    await connection().getByText('Active', { exact: true }).waitFor();
    expect(await initialize(url)).toEqual({ status: 200, error: undefined });
    expect(await serverUrlField().inputValue()).toBe(url);
  });

  it('Try it lists the tool, makes a form from its input schema (fields named by their labels), calls it and shows the result', async () => {
    await page.getByRole('button', { name: 'Try it' }).click();
    await tryIt().getByText('Text_Stats', { exact: true }).waitFor();
    const text = 'the cat and the hat and the cat';
    await tryIt()
      .getByRole('textbox', { name: /^Text text\b/ })
      .fill(text);
    await tryIt()
      .getByRole('spinbutton', { name: /^Top N top_n\b/ })
      .fill('2');
    expect(
      await tryIt()
        .getByRole('combobox', { name: /^Language language\b/ })
        .locator('option')
        .allTextContents(),
    ).toEqual(['(none)', 'en', 'fr', 'de']);
    await tryIt().getByRole('button', { name: 'Call' }).click();
    const json = tryIt().locator('.result pre.json');
    await json.waitFor();
    expect(JSON.parse(await textOf(json))).toEqual(textStats(text, 2));
    await tryIt().getByText('Success').waitFor();
    const png = await screenshot(page, 'console-try-it-1440.png', tryIt());
    expect(pngSize(png).width).toBeGreaterThan(600);
  });

  it('a long run shows its progress live, stage by stage, before its result', async () => {
    await openApp('Slow Report');
    await page.getByRole('button', { name: 'Try it' }).click();
    await tryIt()
      .getByRole('textbox', { name: /^Topic topic\b/ })
      .fill('tides');
    await tryIt()
      .getByRole('spinbutton', { name: /^Seconds seconds\b/ })
      .fill('5');
    await tryIt().getByRole('button', { name: 'Call' }).click();
    const status = tryIt().locator('.progress-text');
    await expect.poll(() => textOf(status), { timeout: 20_000 }).toMatch(/^stage [2-4] of 5: \w+/);
    // Mid-run: a progress bar with a value, and no result yet.
    expect(Number(await tryIt().locator('progress').getAttribute('value'))).toBeGreaterThanOrEqual(1);
    expect(await tryIt().locator('.result').count()).toBe(0);
    await tryIt().locator('.result pre.json').waitFor({ timeout: 20_000 });
    expect(JSON.parse(await textOf(tryIt().locator('.result pre.json')))).toMatchObject({
      title: 'A report on tides',
    });
    expect(await textOf(status)).toBe('Done.');
  });

  it('renders images and links of a result: an image inline, a file as a link', async () => {
    await openApp('Image Facts');
    await page.getByRole('button', { name: 'Try it' }).click();
    await tryIt()
      .getByRole('textbox', { name: /^Image image\b/ })
      .fill(JSON.stringify({ url: `data:image/png;base64,${PNG_BASE64}` }));
    await tryIt().getByRole('button', { name: 'Call' }).click();
    const image = tryIt().getByRole('img', { name: 'Image returned by the tool (image/png)' });
    await image.waitFor();
    expect(await image.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBe(48);

    await openApp('Manual Finder');
    await page.getByRole('button', { name: 'Try it' }).click();
    await tryIt()
      .getByRole('textbox', { name: /^query/ })
      .fill('Coffee Maker 3000');
    await tryIt().getByRole('button', { name: 'Call' }).click();
    const link = tryIt().getByRole('link', { name: 'coffee-maker-3000.pdf' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://manuals.example.com/coffee-maker-3000.pdf');
    expect(await textOf(tryIt().locator('.result .text').first())).toBe(
      'Here is the manual for Coffee Maker 3000: coffee-maker-3000.pdf',
    );
  });

  it('saves the description, a parameter description and the hints, and clients see them', async () => {
    await openApp('Title Case');
    const settings = page.getByRole('form', { name: 'Tool settings' });
    await settings.getByRole('textbox', { name: /^Description/ }).fill('Title-cases one line of text.');
    await settings.getByRole('textbox', { name: /^Text/ }).fill('The line to title-case');
    await settings.getByRole('combobox', { name: 'Idempotent' }).selectOption('Yes');
    await settings.getByRole('combobox', { name: 'Open world' }).selectOption('Not stated');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ state: 'attached' });
    // Said next to the Save button; no toast floats over the form (its help texts stay readable).
    await page.getByRole('form', { name: 'Tool settings' }).getByText('Saved', { exact: true }).waitFor();
    expect(await page.locator('#status.shown').count()).toBe(0);
    const tool = await listedTool(urlOf('Title Case'));
    expect(tool.description).toBe('Title-cases one line of text.');
    expect(tool.inputSchema.properties.text?.description).toBe('The line to title-case');
    expect(tool.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
  });

  it('Unpublish asks first and removes the server; Publish gives the app a new URL', async () => {
    await openApp('Calculator Agent');
    const old = await serverUrlField().inputValue();
    await page.getByRole('button', { name: 'Unpublish' }).click();
    await page
      .getByRole('dialog', { name: 'Unpublish this app?' })
      .getByRole('button', { name: 'Unpublish' })
      .click();
    await page.getByRole('heading', { name: 'Not published' }).waitFor();
    expect(await initialize(old)).toEqual({ status: 404, error: 'MCP server not found' });
    const listed = page
      .getByRole('navigation', { name: 'Apps' })
      .getByRole('link', { name: /^Calculator Agent/ });
    expect(await textOf(listed)).toContain('Not published');

    await page.getByRole('button', { name: 'Publish' }).click();
    await serverUrlField().waitFor();
    const url = await serverUrlField().inputValue();
    expect(url).not.toBe(old);
    expect(await initialize(url)).toEqual({ status: 200, error: undefined });
    expect(await focusedName(page)).toBe('Copy URL');
  });
  it('lists, adds, edits, refreshes and deletes tool providers', async () => {
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Tool providers' })
      .click();
    const cards = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3 }) });
    const card = (name: string) => cards.filter({ has: page.getByRole('heading', { name, exact: true }) });
    await card('Text Stats (this server)').getByText('Text_Stats').waitFor();

    await page.getByRole('button', { name: 'Add tool provider' }).click();
    const adding = page.getByRole('dialog', { name: 'Add a tool provider' });
    await adding.getByRole('textbox', { name: 'Name', exact: true }).fill('Title Case here');
    await adding.getByRole('textbox', { name: 'Server URL' }).fill(urlOf('Title Case'));
    await adding.getByRole('button', { name: 'Add header' }).click();
    await adding.getByRole('textbox', { name: 'Header name' }).fill('X-Trace');
    await adding.getByRole('textbox', { name: 'Header value' }).fill('console-page-test');
    await adding.getByRole('button', { name: 'Add', exact: true }).click();
    await card('Title Case here').getByText('Title_Case').waitFor();
    // The URL's path holds the server code: it is shown masked.
    expect(await textOf(card('Title Case here').locator('code.masked'))).toBe(`${base}/******`);
    expect(await textOf(card('Title Case here'))).toContain('Headers: X-Trace');

    await page.getByRole('button', { name: 'Edit Title Case here' }).click();
    const editing = page.getByRole('dialog', { name: 'Edit Title Case here' });
    expect(await editing.getByRole('textbox', { name: 'Server URL' }).inputValue()).toBe(`${base}/******`);
    await editing.getByRole('textbox', { name: 'Name', exact: true }).fill('Title Case, renamed');
    await editing.getByRole('button', { name: 'Save changes' }).click();
    await card('Title Case, renamed').waitFor();
    expect(await card('Title Case here').count()).toBe(0);

    await page.getByRole('button', { name: 'Refresh tools of Title Case, renamed' }).click();
    await page.getByRole('status').filter({ hasText: 'Tools listed again' }).waitFor();
    await screenshot(page, 'console-providers-1440.png');

    await page.getByRole('button', { name: 'Delete Title Case, renamed' }).click();
    await page
      .getByRole('dialog', { name: 'Delete Title Case, renamed?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect.poll(() => card('Title Case, renamed').count()).toBe(0);
    expect(await card('Text Stats (this server)').count()).toBe(1);
  });

  it('a provider the console cannot reach is refused with the reason, in the form', async () => {
    await page.getByRole('button', { name: 'Add tool provider' }).click();
    const adding = page.getByRole('dialog', { name: 'Add a tool provider' });
    await adding.getByRole('textbox', { name: 'Name', exact: true }).fill('Nowhere');
    await adding
      .getByRole('textbox', { name: 'Server URL' })
      .fill(`${base}/mcp/server/nosuchcode0000000/mcp`);
    await adding.getByRole('button', { name: 'Add', exact: true }).click();
    const alert = adding.getByRole('alert');
    await alert.waitFor();
    expect(await textOf(alert)).toMatch(/^MCP server http:\/\/localhost:\d+\/\*{6}: /);
    await adding.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => adding.count()).toBe(0);
  });

  it('every control is reached with Tab, in reading order, and works from the keyboard', async () => {
    await page.goto(`${consoleUrl()}#/apps/text-stats`);
    // A fresh load: the focus starts at the top of the document.
    await page.reload();
    await serverUrlField().waitFor();
    const reached: string[] = [];
    for (let presses = 0; presses < 40 && !reached.includes('Try it'); presses++) {
      await page.keyboard.press('Tab');
      reached.push(await focusedName(page));
    }
    const order = [
      'Apps',
      'Tool providers',
      'Sign out',
      'MCP server URL',
      'Copy URL',
      'Deactivate',
      'Rotate',
      'Try it',
    ];
    expect(reached.filter((name) => order.includes(name))).toEqual(order);
    // The apps of the list are on the way, each once.
    expect(reached.filter((name) => / (Workflow|Chatbot|Chatflow|Agent|Completion) /.test(name))).toEqual([
      'Text Stats Workflow Active',
      'FAQ Bot Chatbot Active',
      'Support Desk Chatflow Active',
      'Calculator Agent Agent Active',
      'Title Case Completion Active',
      'Image Facts Workflow Active',
      'Manual Finder Chatbot Active',
      'Slow Report Workflow Active',
      'Remote Text Stats Workflow Active',
      'Expense Approval Workflow Active',
      'Weather Agent Agent Active',
      'Tagline Writer Workflow Active',
      'Who Am I Workflow Active',
    ]);

    await page.keyboard.press('Enter');
    await tryIt().getByRole('button', { name: 'Call' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toMatch(/^Text text\b/);
    await page.keyboard.type('one two two');
    for (let presses = 0; presses < 10 && (await focusedName(page)) !== 'Call'; presses++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await tryIt().locator('.result pre.json').waitFor();
    expect(JSON.parse(await textOf(tryIt().locator('.result pre.json')))).toEqual(textStats('one two two'));

    // The confirmation of Rotate is a modal dialog: Escape cancels it, and the focus returns.
    await page.getByRole('button', { name: 'Rotate', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Rotate the code?' }).waitFor();
    expect(await focusedName(page)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await focusedName(page)).toBe('Rotate');
  });

  it('reads well 360 px wide: one column, nothing wider than the screen', async () => {
    const phone = await openPage(browser, VIEWPORTS.phone);
    try {
      await signIn(phone.page, base);
      const view = phone.page;
      const fits = () => view.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      expect(await fits()).toBe(true);
      await view
        .getByRole('navigation', { name: 'Apps' })
        .getByRole('link', { name: /^Text Stats/ })
        .click();
      await view.getByLabel('MCP server URL').waitFor();
      // On a phone the app takes the whole screen, with a way back to the list.
      expect(await view.getByRole('navigation', { name: 'Apps' }).isVisible()).toBe(false);
      expect(await view.getByRole('link', { name: '← All apps' }).isVisible()).toBe(true);
      for (const name of ['Copy URL', 'Deactivate', 'Rotate', 'Try it']) {
        expect(await view.getByRole('button', { name, exact: true }).isVisible()).toBe(true);
      }
      expect(await fits()).toBe(true);
      const png = await screenshot(view, 'console-app-360.png');
      expect(pngSize(png)).toEqual(VIEWPORTS.phone);

      await view.getByRole('button', { name: 'Try it' }).click();
      await view
        .getByRole('region', { name: 'Try it' })
        .getByRole('textbox', { name: /^Text text\b/ })
        .fill('a b a');
      await view.getByRole('region', { name: 'Try it' }).getByRole('button', { name: 'Call' }).click();
      await view.locator('.result pre.json').waitFor();
      expect(await fits()).toBe(true);
      const tried = await screenshot(
        view,
        'console-try-it-360.png',
        view.getByRole('region', { name: 'Try it' }),
      );
      expect(pngSize(tried).width).toBeLessThanOrEqual(VIEWPORTS.phone.width);
      expect(phone.problems).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });

  it('kept its Content-Security-Policy (nothing refused) and threw no script error all along', () => {
    expect(desktop.problems).toEqual([]);
  });
});
