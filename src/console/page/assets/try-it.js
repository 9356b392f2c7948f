import { inputRequiredView } from './ask.js';
import { h, replace, uid } from './dom.js';
import { McpError, mcpRequest } from './mcp.js';
import { resultView } from './result-view.js';
import { schemaForm } from './schema-form.js';

/**
 * "Try it": the server's tool as an MCP client sees it (`tools/list` on the server's URL), a form
 * from its `inputSchema`, the call with its progress shown live, and the result.
 * @param {{ url: string, status: string, auth_mode: string }} server
 * @param {{ variable: string, label: string }[]} [inputs] the app's inputs: their labels name the fields
 * @returns {HTMLElement}
 */
export function tryItPanel(server, inputs = []) {
  const body = h('div', { class: 'try-body' });
  const section = h(
    'section',
    { class: 'card try', 'aria-labelledby': 'try-title', tabindex: '-1' },
    h('div', { class: 'card-head' }, h('h3', { id: 'try-title' }, 'Try it')),
    body,
  );
  if (server.status !== 'active') {
    replace(body, h('p', { class: 'notice' }, 'The server is inactive: activate it to try its tool.'));
  } else if (server.auth_mode === 'oauth') {
    replace(
      body,
      h(
        'p',
        { class: 'notice' },
        'This server needs a signed-in user (OAuth). Try it from a client that signs in, such as mcp-remote.',
      ),
    );
  } else if (server.auth_mode === 'key') {
    // The page holds no caller key: a secret is shown once, and never kept (docs/keys.md).
    replace(
      body,
      h(
        'p',
        { class: 'notice' },
        'This server needs a caller key. Try it from a client given one of its keys (Caller keys, below).',
      ),
    );
  } else {
    replace(body, h('p', { class: 'muted', role: 'status' }, 'Listing the tool…'));
    const labels = new Map(inputs.map((input) => [input.variable, input.label]));
    listTool(new URL(server.url, location.origin).href, body, labels);
  }
  return section;
}

/** @param {string} url @param {HTMLElement} body @param {Map<string, string>} labels */
async function listTool(url, body, labels) {
  try {
    const listed = await mcpRequest(url, 'tools/list', {});
    const tool = listed?.tools?.[0];
    if (!tool) throw new McpError('The server lists no tool.');
    replace(body, toolForm(url, tool, labels));
  } catch (error) {
    replace(
      body,
      h('p', { class: 'alert', role: 'alert' }, `The tool could not be listed: ${messageOf(error)}`),
    );
  }
}

/**
 * The form that calls one tool of a server, its progress and its result.
 * @param {string} url @param {any} tool @param {Map<string, string>} [labels]
 */
export function toolForm(url, tool, labels) {
  const form = schemaForm(tool.inputSchema ?? {}, labels);
  const call = h('button', { type: 'submit', class: 'primary' }, 'Call');
  const cancel = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Cancel');
  const progress = h('progress', { hidden: true, 'aria-label': 'Progress of the call' });
  const progressText = h('p', { class: 'muted progress-text', role: 'status' });
  const outcome = h('div', { class: 'outcome', 'aria-live': 'polite' });
  const outcomeId = uid('outcome');
  /** @type {AbortController | undefined} */
  let running;

  const finish = () => {
    running = undefined;
    call.disabled = false;
    cancel.hidden = true;
    progress.hidden = true;
  };

  const element = h(
    'form',
    { class: 'tool-form', novalidate: true, 'aria-describedby': outcomeId },
    h(
      'div',
      { class: 'tool-head' },
      h('p', {}, h('span', { class: 'muted' }, 'Tool '), h('code', { class: 'tool-name' }, tool.name)),
      tool.description && h('p', { class: 'muted' }, tool.description),
    ),
    form.element,
    h('div', { class: 'actions' }, call, cancel),
    progress,
    progressText,
    h('div', { id: outcomeId }, outcome),
  );

  cancel.addEventListener('click', () => running?.abort());
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (running) return;
    const { values, valid } = form.read();
    if (!valid) return;
    running = new AbortController();
    call.disabled = true;
    cancel.hidden = false;
    progress.hidden = false;
    progress.removeAttribute('value');
    progressText.textContent = 'Calling…';
    outcome.replaceChildren();
    const progressToken = crypto.randomUUID();
    try {
      const result = await mcpRequest(
        url,
        'tools/call',
        { name: tool.name, arguments: values, _meta: { progressToken } },
        {
          signal: running.signal,
          onMessage: (message) => showProgress(message, progressToken, progress, progressText),
        },
      );
      progressText.textContent = 'Done.';
      replace(
        outcome,
        result?.resultType === 'input_required' ? inputRequiredView(result) : resultView(result),
      );
    } catch (error) {
      const cancelled = running?.signal.aborted;
      progressText.textContent = cancelled ? 'Cancelled.' : '';
      if (!cancelled)
        replace(outcome, h('p', { class: 'alert', role: 'alert' }, `The call failed: ${messageOf(error)}`));
    } finally {
      finish();
    }
  });
  return element;
}

/**
 * @param {any} message
 * @param {string} token
 * @param {HTMLProgressElement} bar
 * @param {HTMLElement} text
 */
function showProgress(message, token, bar, text) {
  if (message.method !== 'notifications/progress' || message.params?.progressToken !== token) return;
  const { progress, total, message: said } = message.params;
  if (typeof total === 'number' && total > 0) {
    bar.max = total;
    bar.value = Math.min(progress, total);
  }
  // Heartbeats advance by less than a step: people count whole steps.
  const done = Math.floor(progress);
  const step = typeof total === 'number' ? `${done} of ${total}` : `${done}`;
  text.textContent = said ? `${said} (${step})` : `Working… (${step})`;
}

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error));
