/**
 * The soak's floor: a bare Express 5 route with `express.json()` that holds an event stream open
 * for BENCH_WAIT_MS (5000), sends a progress notification every BENCH_HEARTBEAT_MS (1000) and then
 * the result, the same events the soak reads from ours. What Node.js and Express alone need to keep
 * that many streams open, so that the memory of ours can be read against it.
 */
import express from 'express';
import { serve } from './harness.mjs';

const waitMs = Number(process.env.BENCH_WAIT_MS ?? 5000);
const heartbeatMs = Number(process.env.BENCH_HEARTBEAT_MS ?? 1000);

const app = express();
app.post('/mcp', express.json(), (req, res) => {
  const { id, params } = req.body;
  const progressToken = params?._meta?.progressToken;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const send = (message) => res.write(`data: ${JSON.stringify(message)}\n\n`);
  let progress = 0;
  const beat = setInterval(() => {
    progress += 1;
    send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress } });
  }, heartbeatMs);
  const done = setTimeout(() => {
    clearInterval(beat);
    const result = {
      content: [{ type: 'text', text: `{"waited":${waitMs}}` }],
      structuredContent: { waited: waitMs },
      isError: false,
    };
    send({ jsonrpc: '2.0', id, result });
    res.end();
  }, waitMs);
  res.on('close', () => {
    clearInterval(beat);
    clearTimeout(done);
  });
});

serve(app, '/mcp');
