/**
 * The example app's "oauth" demo server, started with `npm start` as a newcomer does: the official
 * MCP client signs a user in at the example's development authorization server (its sign-in page
 * filled in with plain HTTP requests, as a browser would), then calls Who Am I, which runs as that
 * user.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/common.js';
import { HeadlessOAuthClient } from '../helpers/oauth-world.js';
import { launch, READY, START_TIMEOUT_MS, stopAll, waitFor } from '../helpers/processes.js';

/**
 * A browser, headless: follows redirects with the cookies it was given, and on the sign-in page
 * submits `name`; returns the parameters of the final redirect to `redirectUri`.
 */
async function signInWithBrowser(url: URL, redirectUri: string, name: string): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let next: { url: string; init?: RequestInit } = { url: url.href };
  for (let hop = 0; hop < 20; hop++) {
    if (next.url.startsWith(redirectUri)) return new URL(next.url).searchParams;
    const headers = new Headers(next.init?.headers);
    headers.set('cookie', [...cookies].map(([key, value]) => `${key}=${value}`).join('; '));
    const response = await fetch(next.url, { ...next.init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = response.headers.get('location');
    if (location) {
      next = { url: new URL(location, next.url).href };
      continue;
    }
    const page = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    if (!action)
      throw new Error(`neither a redirect nor the sign-in form at ${next.url}: ${response.status} ${page}`);
    next = {
      url: new URL(action, next.url).href,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name }).toString(),
      },
    };
  }
  throw new Error('too many redirects');
}

describe('the example app\'s "oauth" demo server', () => {
  let output = '';
  let folder: string;
  let whoami: string;
  let issuer: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'example-oauth-'));
    const run = launch('npm', ['start'], {
      PORT: String(await freePort()),
      DATABASE_URL: join(folder, 'example.sqlite'),
    });
    await waitFor(run, READY);
    output = run.output();
    whoami = /^ {2}Who Am I \(workflow, oauth\)\n {4}(http:\/\/\S+)$/m.exec(output)?.[1] as string;
    issuer = /^ {2}Sign-in: (http:\/\/\S+), a DEVELOPMENT stand-in/m.exec(output)?.[1] as string;
  }, START_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await stopAll();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('prints the server, its sign-in and how to connect', () => {
    expect(whoami).toMatch(/^http:\/\/localhost:\d+\/mcp\/server\/[A-Za-z0-9]{16}\/mcp$/);
    expect(issuer).toMatch(/^http:\/\/localhost:\d+$/);
    expect(output).toContain(`    npx -y mcp-remote ${whoami}\n`);
  });

  it('refuses a client that has not signed in, pointing at its metadata', async () => {
    const response = await fetch(whoami, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    const metadata = whoami.replace(/^(http:\/\/[^/]+)/, '$1/.well-known/oauth-protected-resource');
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer scope="mcp:tools", resource_metadata="${metadata}"`,
    );
    expect(await (await fetch(metadata)).json()).toEqual({
      resource: whoami,
      authorization_servers: [issuer],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'express-app-mcp example app',
    });
  });

  it('the official client signs a user in at the development authorization server, and the app runs as that user', async () => {
    const provider = new HeadlessOAuthClient((url, redirectUri) =>
      signInWithBrowser(url, redirectUri, 'ada'),
    );
    const url = new URL(whoami);
    await expect(
      new Client({ name: 'example-oauth', version: '1.0.0' }).connect(
        new StreamableHTTPClientTransport(url, { authProvider: provider }),
      ),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await new StreamableHTTPClientTransport(url, { authProvider: provider }).finishAuth(
      provider.authorizationCode as string,
    );
    const client = new Client({ name: 'example-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      const result = await client.callTool({ name: 'Who_Am_I', arguments: {} });
      expect(result.structuredContent).toEqual({
        subject: 'ada',
        tenant: 'demo',
        scopes: ['mcp:tools'],
        end_user: 'ada',
      });
      expect(result.isError).toBe(false);
    } finally {
      await client.close();
    }
  });
});
