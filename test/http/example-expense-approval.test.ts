/**
 * The example's Expense Approval, as the README's clients use it: the official v1 client with an
 * elicitation handler (2025-11-25) and the v2 client pinned to 2026-07-28 each approve or reject
 * through their handler; the decision and the comment come back as the workflow's outputs.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApp, runApp, TENANT_ID } from '../../example-app/apps.js';
import { mcpServer, memoryServerStore } from '../../src/index.js';
import { type Host, serveApp } from '../helpers/hosts.js';

let host: Host;
let url: URL;

beforeAll(async () => {
  const store = memoryServerStore();
  const server = await store.createServer({
    tenantId: TENANT_ID,
    appId: 'expense-approval',
    name: 'Expense Approval',
    description: '',
    parameters: {},
  });
  const app = express();
  app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp }));
  host = await serveApp(app, { name: 'Express 5', major: 5, globalJson: false });
  url = new URL(host.path(server.serverCode), host.url);
});
afterAll(async () => {
  await host?.close();
});

const MESSAGE = 'Approve the expense of 420 EUR for Ana (team dinner)?';
const ARGS = { employee: 'Ana', amount: 420, reason: 'team dinner' };
const outputs = (status: string, comment: string) => ({
  content: [{ type: 'text', text: JSON.stringify({ status, comment }) }],
  structuredContent: { status, comment },
  isError: false,
});

describe('Expense Approval', () => {
  it('the official v1 client approves through its elicitation handler', async () => {
    const client = new Client({ name: 'approver', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const messages: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      messages.push(request.params.message);
      return { action: 'accept', content: { decision: 'approve', comment: 'Enjoy' } };
    });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      expect(await client.callTool({ name: 'Expense_Approval', arguments: ARGS })).toEqual(
        outputs('approved', 'Enjoy'),
      );
      expect(messages).toEqual([MESSAGE]);
    } finally {
      await client.close();
    }
  });

  it('the v2 client pinned to 2026-07-28 rejects through the same kind of handler', async () => {
    const client = new ModernClient(
      { name: 'approver', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { decision: 'reject', comment: 'Over budget' },
    }));
    await client.connect(new ModernTransport(url));
    try {
      const result = await client.callTool({ name: 'Expense_Approval', arguments: ARGS });
      expect(result.structuredContent).toEqual({ status: 'rejected', comment: 'Over budget' });
    } finally {
      await client.close();
    }
  });

  it('a person who declines leaves the expense declined', async () => {
    const client = new Client({ name: 'approver', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      expect(await client.callTool({ name: 'Expense_Approval', arguments: ARGS })).toEqual(
        outputs('declined', ''),
      );
    } finally {
      await client.close();
    }
  });
});
