/// <reference lib="dom" />
/**
 * A forged console write in a real browser (docs/security.md, "Console writes from other sites"):
 * headless Chromium, signed in to a console whose `authorize` reads a session cookie, visits a page
 * on another site that rotates a code with a body-less `fetch` and with a form, as a CSRF attack
 * does. Both arrive with the cookie, and both answer 403 without touching anything; the console's
 * own page still rotates and deletes.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostApp, mcpConsole, memoryServerStore, type ServerRecord } from '../../src/index.js';
import { chromiumMissing, launchChromium } from '../helpers/browser.js';

const missing = chromiumMissing();
const APP: HostApp = { id: 'app-1', name: 'App', mode: 'workflow', inputForm: [] };
const OTHER: HostApp = { id: 'app-2', name: 'Other', mode: 'workflow', inputForm: [] };

/** What the console answered each write, as its server saw the request. */
interface Seen {
  method: string;
  path: string;
  status: number;
  site: string | undefined;
  cookie: boolean;
  body: string;
}

const store = memoryServerStore();
const seen: Seen[] = [];
let authorized = 0;
let server: ServerRecord;
let other: ServerRecord;
let consoleUrl: string;
let attackerUrl: string;
let closers: (() => void)[] = [];
let browser: Browser;
let context: BrowserContext;
let page: Page;

function listen(app: express.Express): Promise<string> {
  return new Promise((resolve) => {
    const http = app.listen(0, '127.0.0.1', () => resolve(String((http.address() as AddressInfo).port)));
    closers.push(() => http.close());
  });
}

describe.skipIf(missing)('console writes in a real browser', () => {
  beforeAll(async () => {
    server = await store.createServer({
      tenantId: 't',
      appId: APP.id,
      name: 'App',
      description: '',
      parameters: {},
    });
    other = await store.createServer({
      tenantId: 't',
      appId: OTHER.id,
      name: 'Other',
      description: '',
      parameters: {},
    });
    const host = express();
    host.use((req, res, next) => {
      if (req.method === 'GET') return next();
      const chunks: Buffer[] = [];
      const { write, end } = res;
      res.end = function (this: express.Response, chunk?: unknown, ...rest: unknown[]) {
        if (Buffer.isBuffer(chunk) || typeof chunk === 'string') chunks.push(Buffer.from(chunk));
        seen.push({
          method: req.method,
          path: req.originalUrl,
          status: res.statusCode,
          site: req.headers['sec-fetch-site'] as string | undefined,
          cookie: req.headers.cookie === 'session=admin',
          body: Buffer.concat(chunks).toString(),
        });
        return (end as (...args: unknown[]) => express.Response).call(this, chunk, ...rest);
      } as typeof res.end;
      res.write = write;
      next();
    });
    // Where the admin signs in: a session cookie made for a UI on another site, sent from any site
    // (`Secure` holds on http://localhost, which browsers count as a secure context).
    host.get('/sign-in', (_req, res) => {
      res.setHeader('Set-Cookie', 'session=admin; Path=/; SameSite=None; Secure; HttpOnly');
      res.type('html').send('<!DOCTYPE html><title>Signed in</title>');
    });
    host.use(
      '/console/api',
      mcpConsole({
        store,
        loadApp: async (appId) => [APP, OTHER].find((app) => app.id === appId) ?? null,
        listApps: () => [APP, OTHER],
        page: { signInUrl: '/sign-in' },
        authorize: (req) => {
          authorized++;
          return req.headers.cookie === 'session=admin' ? { tenantId: 't', canEdit: true } : null;
        },
      }),
    );
    const consolePort = await listen(host);
    consoleUrl = `http://localhost:${consolePort}/console/api`;
    // Another site: `127.0.0.1` is not the site of `localhost`.
    const attacker = express();
    attacker.get('/', (_req, res) => {
      res.type('html').send('<!DOCTYPE html><title>Win a prize</title><p>Nothing to see here.</p>');
    });
    attackerUrl = `http://127.0.0.1:${await listen(attacker)}/`;
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    await page.goto(`http://localhost:${consolePort}/sign-in`);
    expect((await context.cookies()).map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'session', value: 'admin' },
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const close of closers) close();
    closers = [];
  });

  const codeOf = async (record: ServerRecord) => (await store.getServerById(record.id))?.serverCode;
  const FORBIDDEN = JSON.stringify({
    error: {
      code: 'forbidden',
      message:
        "Requests from another site may not change the console (Sec-Fetch-Site: cross-site); use the console's own page, or send the request without a browser",
    },
  });

  it('a body-less fetch from another site to rotate a code answers 403 before authorize; the code stays', async () => {
    const before = await codeOf(server);
    const calls = authorized;
    await page.goto(attackerUrl);
    seen.length = 0;
    await page.evaluate(async (url) => {
      // A "simple" request: no preflight, and the cookie goes along.
      await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include' });
    }, `${consoleUrl}/apps/${server.id}/server/refresh`);
    await expect.poll(() => seen.length).toBe(1);
    expect(seen).toEqual([
      {
        method: 'POST',
        path: `/console/api/apps/${server.id}/server/refresh`,
        status: 403,
        site: 'cross-site',
        // A subresource's cookie is a third-party one, which Chromium may hold back: the refusal does not depend on it.
        cookie: expect.any(Boolean),
        body: FORBIDDEN,
      },
    ]);
    expect(authorized).toBe(calls);
    expect(await codeOf(server)).toBe(before);
  });

  it('a form on another site that posts the rotate, with the cookie, answers 403 too; the code stays', async () => {
    const before = await codeOf(server);
    await page.goto(attackerUrl);
    seen.length = 0;
    await Promise.all([
      page.waitForNavigation(),
      page.evaluate((url) => {
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = url;
        document.body.append(form);
        form.submit();
      }, `${consoleUrl}/apps/${server.id}/server/refresh`),
    ]);
    expect(seen).toEqual([
      {
        method: 'POST',
        path: `/console/api/apps/${server.id}/server/refresh`,
        status: 403,
        site: 'cross-site',
        cookie: true,
        body: FORBIDDEN,
      },
    ]);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toEqual(JSON.parse(FORBIDDEN));
    expect(await codeOf(server)).toBe(before);
  });

  it("the console's own page rotates a code and unpublishes a server, as always", async () => {
    const before = await codeOf(server);
    await page.goto(`${consoleUrl}/`);
    seen.length = 0;
    const replies = await page.evaluate(
      async ({ rotate, remove }) => {
        const rotated = await fetch(rotate, { method: 'POST' });
        const removed = await fetch(remove, { method: 'DELETE' });
        return [
          { status: rotated.status, code: ((await rotated.json()) as { server_code: string }).server_code },
          { status: removed.status, body: await removed.text() },
        ];
      },
      {
        rotate: `${consoleUrl}/apps/${server.id}/server/refresh`,
        remove: `${consoleUrl}/apps/${OTHER.id}/server`,
      },
    );
    expect(replies).toEqual([
      { status: 200, code: expect.stringMatching(/^[A-Za-z0-9]{16}$/) },
      { status: 204, body: '' },
    ]);
    expect(replies[0]!.code).not.toBe(before);
    expect(await codeOf(server)).toBe(replies[0]!.code);
    expect(await codeOf(other)).toBeUndefined();
    expect(seen.map(({ status, site, cookie }) => ({ status, site, cookie }))).toEqual([
      { status: 200, site: 'same-origin', cookie: true },
      { status: 204, site: 'same-origin', cookie: true },
    ]);
  });
});
