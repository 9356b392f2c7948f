/**
 * The floor of a larger `tools/list`: a bare Express 5 route with `express.json()` and `res.json()`
 * answering the list it is given (BENCH_FLOOR_LIST, JSON text: the very result ours answers), as
 * `floor.mjs` answers the one-tool list.
 */
import express from 'express';
import { serve } from './harness.mjs';

const list = JSON.parse(process.env.BENCH_FLOOR_LIST ?? '{"tools":[]}');
const app = express();
app.post('/mcp', express.json(), (req, res) => {
  res.json({ jsonrpc: '2.0', id: req.body.id, result: list });
});

serve(app, '/mcp');
