/**
 * What every benchmarked server serves: one tool, "Echo", with one string input, at protocol
 * 2025-06-18. The floor answers FLOOR_LIST / FLOOR_CALL verbatim; ours must answer exactly the
 * same bytes (the orchestrator checks it before measuring), so the floor is a like-for-like floor.
 */

export const PROTOCOL_VERSION = '2025-06-18';
export const TOOL_NAME = 'Echo';
export const TOOL_DESCRIPTION = 'Echoes its text back';
export const TEXT_DESCRIPTION = 'The text to echo';

/** The host app behind "ours": a workflow with one string input and one declared string output. */
export const ECHO_APP = Object.freeze({
  id: 'echo',
  name: TOOL_NAME,
  mode: 'workflow',
  description: TOOL_DESCRIPTION,
  inputForm: [{ type: 'text-input', variable: 'text', required: true, description: TEXT_DESCRIPTION }],
  outputs: [{ variable: 'text', type: 'string' }],
});

/** The apps of the toolset rows (bench/toolsets.mjs): the Echo app 100 times, each its own tool. */
export const TOOLSET_SIZE = 100;
export const TOOLSET_APPS = Object.freeze(
  Array.from({ length: TOOLSET_SIZE }, (_, index) =>
    Object.freeze({ ...ECHO_APP, id: `echo-${index}`, name: `${TOOL_NAME}_${index}` }),
  ),
);

export const TOOL = {
  name: TOOL_NAME,
  title: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: TEXT_DESCRIPTION } },
    required: ['text'],
  },
  outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

export const ARGUMENTS = { text: 'hello' };

export const LIST_REQUEST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
export const CALL_REQUEST = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: TOOL_NAME, arguments: ARGUMENTS },
};

/** The long-run rows: the Echo app streams this many progress events at once before its outputs. */
export const PROGRESS_EVENTS = 5;
/** The same call, with a progress token: the progress events make its reply a stream. */
export const STREAMED_CALL_REQUEST = {
  ...CALL_REQUEST,
  params: { ...CALL_REQUEST.params, _meta: { progressToken: 'bench' } },
};

export const FLOOR_LIST = { tools: [TOOL] };
export const FLOOR_CALL = {
  content: [{ type: 'text', text: JSON.stringify(ARGUMENTS) }],
  isError: false,
  structuredContent: ARGUMENTS,
};

/** The headers a Streamable HTTP client sends after initialize (MCP 2025-06-18 transports). */
export const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL_VERSION,
};
