/**
 * The example app started as the README tells a newcomer (`npm start` with `PORT`, `DATABASE_URL`
 * and `CONSOLE_TOKEN`) on a fresh SQLite file, and headless Chromium with a desktop page allowed
 * the clipboard on its origin: the start of the console page's browser suites.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, VIEWPORTS, type Watched } from './browser.js';
import { freePort } from './common.js';
import {
  CONSOLE_TOKEN,
  databaseKinds,
  type ExampleDatabase,
  type Launched,
  launch,
  READY,
  waitFor,
} from './processes.js';

export interface ExamplePage {
  database: ExampleDatabase;
  app: Launched;
  /** `http://localhost:<port>`, the example app's origin. */
  base: string;
  browser: Browser;
  desktop: Watched;
}

/**
 * Starts the example app and Chromium. `started` receives the database as soon as it exists, so
 * that the suite's `afterAll` destroys it even when the app fails to start.
 */
export async function startExamplePage(started: (database: ExampleDatabase) => void): Promise<ExamplePage> {
  const sqlite = databaseKinds.find((kind) => kind.name === 'sqlite')!;
  const database = await sqlite.create();
  started(database);
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const app = launch('npm', ['start'], { PORT: String(port), DATABASE_URL: database.url, CONSOLE_TOKEN });
  await waitFor(app, READY);
  const browser = await launchChromium();
  const desktop = await openPage(browser, VIEWPORTS.desktop);
  await desktop.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  return { database, app, base, browser, desktop };
}

/** Signs a page in to the example app's console with the console token, and waits for the apps' list. */
export async function signIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/console/api/`);
  await page.getByLabel('Console token').fill(CONSOLE_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Apps' }).waitFor();
}
