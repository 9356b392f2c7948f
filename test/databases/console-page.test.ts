/**
 * The console page as HTTP sees it (docs/console.md, "The console page"): `mcpConsole({ page })`
 * serves the HTML at the console's root and its own files under `page/`, each with the page's
 * Content-Security-Policy, and `GET /apps` lists the apps with their servers when the host gives
 * `listApps`. What a person does with the page is in console-page.browser.test.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type express from 'express';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type McpConsoleOptions,
  mcpConsole,
  memoryServerStore,
} from '../../src/index.js';
import {
  Apps,
  authorize,
  createHost,
  expectError,
  expectJson,
  expectNotFound,
  expectUnauthenticated,
  HOST_404,
  TENANT_A,
  TENANT_B,
  useConsoleHost,
} from '../helpers/console-host.js';
import { databases, describeEach } from '../helpers/databases.js';

const ASSETS = new URL('../../src/console/page/assets/', import.meta.url);

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "media-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** The headers every file of the page is sent with, besides its type and length. */
function expectPageHeaders(headers: Record<string, string>) {
  expect(headers['content-security-policy']).toBe(CSP);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['cache-control']).toBe('no-cache');
  expect(headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
}

/** A reply's body as bytes, whatever its type. */
const bytesOf = (path: string) =>
  request(host())
    .get(path)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

let current: express.Express;
const host = () => current;

const served = async () => (await readdir(ASSETS)).filter((name) => name !== 'index.html').sort();

describe('the console page', () => {
  const apps = new Apps();

  beforeAll(() => {
    ({ app: current } = createHost(memoryServerStore(), apps, {
      listApps: apps.list,
      page: { title: 'Ops <console> & "friends"', toolProviders: 'tool-providers' },
    }));
  });

  it('the console root answers the page: HTML with its own policy, and no inline script or style', async () => {
    const reply = await request(host()).get('/console/api/');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.text));
    expectPageHeaders(reply.headers);
    const html = reply.text;
    expect(html).toContain('<script type="module" src="page/main.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="page/console.css">');
    // Every script has a src, and nothing styles inline: the policy forbids both.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="page/main.js">']);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    // The host's settings arrive escaped, as data attributes.
    expect(html).toContain('<title>Ops &lt;console&gt; &amp; &quot;friends&quot;</title>');
    expect(html).toContain('<body data-tool-providers="tool-providers" data-sign-in-url="">');
  });

  it('needs no sign-in, while the API behind it still does', async () => {
    expect((await request(host()).get('/console/api/')).status).toBe(200);
    expectUnauthenticated(await request(host()).get('/console/api/apps'));
  });

  it('the root without its slash redirects to it, keeping the query, with a relative Location', async () => {
    const reply = await request(host()).get('/console/api?from=menu');
    expect(reply.status).toBe(308);
    // Relative, so a reverse proxy's path prefix is kept: the page's files are addressed from there.
    expect(reply.headers.location).toBe('api/?from=menu');
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  it("serves each of the page's files under page/, as they are, with its type and the page's policy", async () => {
    const names = await served();
    expect(names).toEqual(expect.arrayContaining(['console.css', 'main.js', 'icon.svg']));
    for (const name of names) {
      const reply = await bytesOf(`/console/api/page/${name}`);
      expect(reply.status, name).toBe(200);
      expect(reply.headers['content-type'], name).toBe(TYPES[name.split('.').pop()!]);
      expectPageHeaders(reply.headers);
      expect(Buffer.compare(reply.body as Buffer, await readFile(new URL(name, ASSETS))), name).toBe(0);
    }
  });

  it('anything else under page/ is a 404, the HTML template and paths that climb out included', async () => {
    for (const path of [
      'page/index.html',
      'page/nothing.js',
      'page/..%2Frouter.ts',
      'page/%2E%2E%2Findex.html',
    ]) {
      expectNotFound(await request(host()).get(`/console/api/${path}`), 'not found');
    }
  });

  it('a request that holds the current version gets a 304 without a body', async () => {
    for (const path of ['/console/api/', '/console/api/page/main.js']) {
      const first = await request(host()).get(path);
      const again = await request(host()).get(path).set('If-None-Match', `W/"x", ${first.headers.etag}`);
      expect(again.status).toBe(304);
      expect(again.text ?? '').toBe('');
      expect(again.headers.etag).toBe(first.headers.etag);
      expect((await request(host()).get(path).set('If-None-Match', '"old"')).status).toBe(200);
    }
  });

  it('other methods on the page answer 405 with Allow: GET', async () => {
    for (const path of ['/console/api/', '/console/api/page/main.js']) {
      const reply = await request(host()).post(path).set('Authorization', 'Bearer editor-a');
      expectError(reply, 405, 'method_not_allowed', 'Method not allowed: POST');
      expect(reply.headers.allow).toBe('GET');
    }
  });

  it('every file the page loads is served, each is used, and all of them weigh less than 60 KB gzipped', async () => {
    const loaded = new Map<string, Buffer>();
    const html = (await request(host()).get('/console/api/')).text;
    const pending = [...html.matchAll(/(?:src|href)="page\/([^"]+)"/g)].map((match) => match[1]!);
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (loaded.has(name)) continue;
      const reply = await bytesOf(`/console/api/page/${name}`);
      expect(reply.status, name).toBe(200);
      const body = reply.body as Buffer;
      loaded.set(name, body);
      if (name.endsWith('.js')) {
        for (const match of body.toString('utf8').matchAll(/^import\b[^;]*?from '\.\/([^']+)';$/gm))
          pending.push(match[1]!);
      }
    }
    expect([...loaded.keys()].sort()).toEqual(await served());
    const gzipped = [Buffer.from(html), ...loaded.values()].reduce(
      (total, body) => total + gzipSync(body).length,
      0,
    );
    expect(gzipped).toBeLessThan(60 * 1024);
  });

  it('a console without page or listApps leaves its root, page/ and /apps to the host', async () => {
    const { app } = createHost(memoryServerStore(), apps);
    for (const path of ['/console/api/', '/console/api/page/main.js', '/console/api/apps']) {
      const reply = await request(app).get(path).set('Authorization', 'Bearer editor-a');
      expect(reply.status).toBe(404);
      expect(reply.text).toBe(HOST_404);
    }
  });
});

describe('the page options', () => {
  const apps = new Apps();
  const base = (): McpConsoleOptions => ({ store: memoryServerStore(), loadApp: apps.load, authorize });
  const invalid = (message: string) => new ConfigurationError('invalid_options', `mcpConsole: ${message}`);

  it('page needs listApps: the page lists the apps through it', () => {
    expect(() => mcpConsole({ ...base(), page: true })).toThrow(
      invalid('invalid option "listApps": is required with page: the page lists the apps through it'),
    );
    expect(() => mcpConsole({ ...base(), page: false })).not.toThrow();
  });

  it('toolProviders must be a path on this origin, and signInUrl a path or an http(s) URL', () => {
    const listApps = apps.list;
    expect(() =>
      mcpConsole({ ...base(), listApps, page: { toolProviders: 'https://elsewhere.example/tp' } }),
    ).toThrow(
      invalid(
        'invalid option "page.toolProviders": must be a path on this origin, such as "tool-providers" or "/admin/tool-providers"',
      ),
    );
    expect(() => mcpConsole({ ...base(), listApps, page: { signInUrl: 'javascript:alert(1)' } })).toThrow(
      invalid('invalid option "page.signInUrl": must be a path or an http(s) URL'),
    );
    expect(() =>
      mcpConsole({
        ...base(),
        listApps,
        page: { toolProviders: '/admin/tool-providers', signInUrl: 'https://sso.example/login' },
      }),
    ).not.toThrow();
  });

  it('an unknown page setting is named', () => {
    expect(() =>
      mcpConsole({
        ...base(),
        listApps: apps.list,
        page: { titel: 'x' } as unknown as McpConsoleOptions['page'],
      }),
    ).toThrow(invalid('unknown option "page.titel"'));
  });
});

describeEach(databases)('GET /apps with listApps on $name', (kind) => {
  const c = useConsoleHost(kind, { listApps: (tenantId) => c.apps.list(tenantId) });
  const list = (token?: string) => {
    const test = request(c.host.app).get('/console/api/apps');
    return token ? test.set('Authorization', `Bearer ${token}`) : test;
  };

  it("lists the tenant's apps in the host's order, each with its inputs and its server or null", async () => {
    const published = c.apps.add(TENANT_A, { name: 'Published' });
    const unpublished = c.apps.add(TENANT_A, {
      name: 'Not yet',
      mode: 'chat',
      description: undefined,
      inputForm: [
        { type: 'select', variable: 'tone', options: ['plain', 'friendly'] },
        { type: 'external_data_tool', variable: 'hidden' },
      ],
    });
    const created = await request(c.host.app)
      .post(`/console/api/apps/${published.id}/server`)
      .set('Authorization', 'Bearer editor-a')
      .send({ parameters: { text: 'The text to count' } });
    expect(created.status).toBe(201);

    const reply = await list('viewer-a');
    expectJson(reply, 200);
    expect(reply.body).toEqual([
      {
        id: published.id,
        name: 'Published',
        mode: 'workflow',
        description: 'Counts the words of a text',
        inputs: [
          { variable: 'text', label: 'Text', type: 'paragraph', required: true, defaultDescription: 'Text' },
          { variable: 'top_n', label: 'Top N', type: 'number', required: false, defaultDescription: 'Top N' },
        ],
        server: created.body,
      },
      {
        id: unpublished.id,
        name: 'Not yet',
        mode: 'chat',
        description: '',
        inputs: [
          { variable: 'tone', label: 'tone', type: 'select', required: false, defaultDescription: '' },
        ],
        server: null,
      },
    ]);
  });

  it('another tenant sees only its own apps; no caller, no list', async () => {
    const theirs = c.apps.add(TENANT_B, { name: 'Theirs' });
    const reply = await list('editor-b');
    expectJson(reply, 200);
    expect(reply.body.map((app: { id: string }) => app.id)).toEqual([theirs.id]);
    expectUnauthenticated(await list());
    const wrong = await request(c.host.app).post('/console/api/apps').set('Authorization', 'Bearer editor-a');
    expectError(wrong, 405, 'method_not_allowed', 'Method not allowed: POST');
  });

  it('a listApps that throws answers 500 with no detail; the cause goes to onError', async () => {
    const failure = new Error('apps service unreachable');
    const { app, reports } = createHost(c.store, c.apps, {
      listApps: () => {
        throw failure;
      },
    });
    expectError(
      await request(app).get('/console/api/apps').set('Authorization', 'Bearer viewer-a'),
      500,
      'internal',
      'Internal error',
    );
    expect(reports).toEqual([{ error: failure, context: { operation: 'list', tenantId: TENANT_A } }]);
  });
});
