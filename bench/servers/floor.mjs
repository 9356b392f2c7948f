/**
 * The floor: a bare Express 5 route with `express.json()` and `res.json()` answering a fixed,
 * MCP-shaped reply. Whatever a middleware does on top of this costs requests per second.
 */
import express from 'express';
import { FLOOR_CALL, FLOOR_LIST } from '../fixture.mjs';
import { serve } from './harness.mjs';

const app = express();
app.post('/mcp', express.json(), (req, res) => {
  const result = req.body.method === 'tools/call' ? FLOOR_CALL : FLOOR_LIST;
  res.json({ jsonrpc: '2.0', id: req.body.id, result });
});

serve(app, '/mcp');
