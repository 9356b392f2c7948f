/// <reference lib="dom" />
/**
 * A real browser for the console page's tests: headless Chromium from Debian's `chromium` package
 * (`.ci/run` installs it), driven by playwright-core. Without it the tests are skipped with the
 * reason printed, except in CI, where its absence is a failure that says what to install.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { ROOT } from './processes.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why the browser tests cannot run here, or `undefined` when they can. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium), or set CHROMIUM_PATH`;
  if (process.env.CI) throw new Error(`The console page's browser tests cannot run in CI: ${reason}`);
  console.warn(`Skipping the console page's browser tests: ${reason}`);
  return reason;
}

export function launchChromium(): Promise<Browser> {
  // Chromium's sandbox cannot start as root (CI runs as root).
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** The two widths the page is made for: a small phone and a desktop screen. */
export const VIEWPORTS = {
  phone: { width: 360, height: 780 },
  desktop: { width: 1440, height: 900 },
} as const;

export interface Watched {
  page: Page;
  context: BrowserContext;
  /** Everything the page complained about: script errors and refused resources (CSP). */
  problems: string[];
}

/** A page in a fresh context (its own sessionStorage, as a new tab), whose errors are collected. */
export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<Watched> {
  const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    // An error status the page handles (401 before signing in, 400 for a provider that does not
    // answer) is logged by the browser too; the page shows those itself.
    const handled = /^Failed to load resource: the server responded with a status of [45]\d\d/;
    if (message.type() === 'error' && !handled.test(message.text())) problems.push(message.text());
  });
  return { page, context, problems };
}

/**
 * Where the screenshots go: a temporary folder, so that a test run leaves the working tree as it
 * was; `npm run screenshots` sets `UPDATE_SCREENSHOTS=1` to write docs/images/ instead.
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(ROOT, 'docs', 'images')
    : join(tmpdir(), 'express-app-mcp-screenshots');

/**
 * Saves what a person sees, for docs/console.md: the viewport, or one element of the page as it
 * looks scrolled to the top (so the sticky header does not cover it).
 */
export async function screenshot(page: Page, name: string, element?: Locator): Promise<Buffer> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, name);
  // A confirmation ("Copied", "Saved") fades after a few seconds; it is not part of the picture.
  await page.locator('#status.shown').waitFor({ state: 'detached' });
  if (!element) return page.screenshot({ path });
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await element.boundingBox();
  if (!box) throw new Error(`${name}: the element is not visible`);
  const margin = 12;
  const clip = {
    x: Math.max(0, box.x - margin),
    y: Math.max(0, box.y - margin),
    width: box.width + 2 * margin,
    height: box.height + 2 * margin,
  };
  return page.screenshot({ path, fullPage: true, clip });
}

/** The PNG's width and height, from its header. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The accessible name of what has the focus (its label, `aria-label` or text). */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return '';
    const label = element.getAttribute('aria-label');
    if (label) return label;
    const labels = (element as HTMLInputElement).labels;
    // biome-ignore lint/performance/useDomNodeTextContent: innerText puts spaces between a link's parts, as they are read
    const read = (node: HTMLElement) => node.innerText.replace(/\s+/g, ' ').trim();
    if (labels && labels.length > 0) return read(labels[0]!);
    return read(element);
  });
}
