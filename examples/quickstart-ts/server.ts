// Quick start, strict TypeScript (ES modules, Express 5): publish your own apps as MCP servers.
// npm install express-app-mcp express knex better-sqlite3
// npm install -D typescript @types/express @types/node && npx tsc && node dist/server.js
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request } from 'express';
import {
  type AppMode,
  AppRunError,
  type AuthorizeConsole,
  type HostApp,
  type InputVariable,
  knexServerStore,
  type LoadApp,
  mcpConsole,
  mcpServer,
  migrate,
  type RunApp,
} from 'express-app-mcp';
import knex from 'knex';

const PORT = Number(process.env.PORT ?? 3000);
const PUBLIC_URL = process.env.PUBLIC_URL ?? `http://localhost:${PORT}`;
const CONSOLE_TOKEN = process.env.CONSOLE_TOKEN ?? 'change-me'; // PLACEHOLDER: see authorize below

/** A row of your apps table (below). */
interface AppRow {
  id: string;
  tenant_id: string;
  name: string;
  mode: AppMode;
  description: string;
  input_form: string;
}

const db = knex({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true });

// Server codes and end users, in your database (tables made by `migrate` below).
const store = knexServerStore(db);

// PLACEHOLDER: your own apps. Your backend has its table already; this one is made here so that the
// quick start runs. Every app has its own input form (Dify's user_input_form), stored as JSON.
async function createAppsTable(): Promise<void> {
  if (await db.schema.hasTable('apps')) return;
  await db.schema.createTable('apps', (table) => {
    table.string('id').primary();
    table.string('tenant_id').notNullable();
    table.string('name').notNullable();
    table.string('mode').notNullable(); // workflow, chat, advanced-chat, agent-chat or completion
    table.text('description').notNullable();
    table.text('input_form').notNullable();
  });
  await db<AppRow>('apps').insert([
    {
      id: 'summarize',
      tenant_id: 'demo',
      name: 'Summarize',
      mode: 'workflow',
      description: 'Shortens a text to its first sentence.',
      input_form: JSON.stringify([
        { type: 'paragraph', variable: 'text', label: 'Text', required: true, max_length: 10000 },
      ]),
    },
    {
      id: 'helpdesk',
      tenant_id: 'demo',
      name: 'Help Desk',
      mode: 'chat', // chat modes get a required `query` besides their form
      description: 'Answers questions about our product.',
      input_form: JSON.stringify([
        { type: 'select', variable: 'tone', label: 'Tone', options: ['plain', 'friendly'], default: 'plain' },
      ]),
    },
  ]);
}

// How to find one of your apps: null when it does not exist (any more).
const loadApp: LoadApp = async (appId, tenantId): Promise<HostApp | null> => {
  const row = await db<AppRow>('apps').where({ id: appId, tenant_id: tenantId }).first();
  if (!row) return null;
  return {
    id: row.id,
    name: row.name, // the tool name is derived from it: "Help Desk" -> Help_Desk
    mode: row.mode,
    description: row.description,
    inputForm: JSON.parse(row.input_form) as InputVariable[],
  };
};

// How to run one of your apps once, its arguments already checked against its form.
// PLACEHOLDER: call your own engine here, and pass it `run.signal` (aborted on cancel and timeout).
const runApp: RunApp = async ({ app, inputs, query = '' }) => {
  if (app.mode === 'workflow') {
    return { outputs: { summary: String(inputs.text).split(/(?<=[.!?])\s/)[0] } };
  }
  if (/password/i.test(query)) throw new AppRunError('I cannot help with passwords.'); // the client reads it
  return { answer: `${inputs.tone === 'friendly' ? 'Happy to help! ' : ''}You asked: ${query}` };
};

// Who may use the console: { tenantId, canEdit }, or null (401).
// PLACEHOLDER: your own sign-in and roles; here one bearer token.
const authorize: AuthorizeConsole = (req: Request) => {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const given = digest(req.get('authorization') ?? '');
  return timingSafeEqual(given, digest(`Bearer ${CONSOLE_TOKEN}`))
    ? { tenantId: 'demo', canEdit: true }
    : null;
};

// The package's own tables (mcp_servers, mcp_end_users, their migrations table); yours are untouched.
await migrate(db);
await createAppsTable();

const app = express();

// The MCP endpoint, POST /mcp/server/:serverCode/mcp, mounted BEFORE express.json(): it reads its
// bodies itself and answers bad ones with JSON-RPC errors.
app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp }));
app.use(express.json());

// The console to publish, edit, deactivate, rotate and unpublish servers; `url` in its replies is
// the MCP endpoint to give to clients.
const mcpPath = (code: string) => `${PUBLIC_URL}/mcp/server/${code}/mcp`;
app.use('/console/api', mcpConsole({ store, loadApp, authorize, mcpPath }));

app.listen(PORT, '127.0.0.1', () => {
  console.log(`Listening on ${PUBLIC_URL}. Publish the Summarize app with:`);
  console.log(
    `  curl -X POST ${PUBLIC_URL}/console/api/apps/summarize/server -H "Authorization: Bearer ${CONSOLE_TOKEN}" -H "Content-Type: application/json" -d '{"parameters": {}}'`,
  );
});
