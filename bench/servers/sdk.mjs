/**
 * The official SDK (@modelcontextprotocol/sdk 1.x) in the stateless JSON recipe of its Express
 * examples: `createMcpExpressApp()`, then a new `McpServer` and a new
 * `StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })` per
 * request, closed when the response closes. It exposes the same tool as the others.
 */
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { TEXT_DESCRIPTION, TOOL_DESCRIPTION, TOOL_NAME } from '../fixture.mjs';
import { serve } from './harness.mjs';

function getServer() {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
  server.registerTool(
    TOOL_NAME,
    {
      title: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      inputSchema: { text: z.string().describe(TEXT_DESCRIPTION) },
      outputSchema: { text: z.string() },
    },
    async ({ text }) => ({
      content: [{ type: 'text', text: JSON.stringify({ text }) }],
      structuredContent: { text },
    }),
  );
  return server;
}

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      transport.close();
      server.close();
    });
  } catch {
    if (!res.headersSent) {
      res.status(500).json({
        jsonrpc: '2.0',
        error: { code: -32603, message: 'Internal server error' },
        id: null,
      });
    }
  }
});

serve(app, '/mcp');
