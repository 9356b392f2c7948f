/**
 * Ours, for the asking row: `mcpServer` on a bare Express 5 app serving one app that asks a person
 * (`run.ask`) before it answers, from a memory store. Its runs wait until they are answered.
 */
import express from 'express';
import { loadPackage, publishBenchApp, serve } from './harness.mjs';

const { mcpServer, memoryServerStore } = await loadPackage();

const APPROVAL = Object.freeze({ id: 'approval', name: 'Approval', mode: 'workflow', inputForm: [] });
const FIELDS = [
  { select: { variable: 'decision', options: ['approve', 'reject'], required: true } },
  { paragraph: { variable: 'comment', required: false } },
];

const store = memoryServerStore();
const server = await publishBenchApp(store, APPROVAL);
const app = express();
app.use(
  mcpServer({
    resolveServer: store.resolver(() => APPROVAL),
    heartbeatMs: 0,
    callTimeoutMs: 0,
    runApp: async (run) => {
      const answer = await run.ask({ key: 'approval', message: 'Approve the expense?', fields: FIELDS });
      return { outputs: { decision: answer.action === 'accept' ? answer.values.decision : answer.action } };
    },
  }),
);
serve(app, `/mcp/server/${server.serverCode}/mcp`);
