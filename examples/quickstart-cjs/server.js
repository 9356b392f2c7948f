// Quick start, CommonJS and Express 4: publish your own apps as MCP servers.
// npm install && npm start
const express = require('express');
const { knexServerStore, mcpConsole, mcpServer, migrate } = require('express-app-mcp');
const knex = require('knex');
const { authorize, CONSOLE_TOKEN, loadApp, runApp } = require('./your-apps.js');

const PORT = Number(process.env.PORT ?? 3000);
const PUBLIC_URL = process.env.PUBLIC_URL ?? `http://localhost:${PORT}`;

async function main() {
  // Server codes and end users, in your database: migrate makes the package's tables, yours are untouched.
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: 'app.sqlite' },
    useNullAsDefault: true,
  });
  await migrate(db);
  const store = knexServerStore(db);

  const app = express();
  // The MCP endpoint, POST /mcp/server/:serverCode/mcp, before express.json(): it reads its own bodies.
  app.use(mcpServer({ resolveServer: store.resolver(loadApp), runApp }));
  app.use(express.json());
  // The console that publishes, edits, rotates and unpublishes servers; its `url` is what clients use.
  const mcpPath = (code) => `${PUBLIC_URL}/mcp/server/${code}/mcp`;
  app.use('/console/api', mcpConsole({ store, loadApp, authorize, mcpPath }));

  app.listen(PORT, '127.0.0.1', () => {
    console.log(`Listening on ${PUBLIC_URL}. Publish the Summarize app with:`);
    console.log(
      `  curl -X POST ${PUBLIC_URL}/console/api/apps/summarize/server -H "Authorization: Bearer ${CONSOLE_TOKEN}" -H "Content-Type: application/json" -d '{"parameters": {}}'`,
    );
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
