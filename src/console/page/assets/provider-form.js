import { ApiError } from './api.js';
import { h, uid } from './dom.js';

/**
 * The form that adds a tool provider (`provider` null) or edits one. Values shown masked may be
 * sent back as they are: the console keeps the stored ones.
 * @param {any} provider
 * @param {(body: Record<string, unknown>) => Promise<void>} submit
 */
export function providerForm(provider, submit) {
  const name = textField('Name', provider?.name ?? '', { required: true, maxlength: 255 });
  const url = textField('Server URL', provider?.server_url ?? '', {
    required: true,
    type: 'url',
    placeholder: 'https://example.com/mcp',
    hint: 'Its Streamable HTTP endpoint (ending in /mcp), or its SSE endpoint (ending in /sse).',
  });
  const timeout = textField('Timeout (ms)', String(provider?.timeout_ms ?? ''), {
    type: 'number',
    placeholder: '30000',
  });
  const callTimeout = textField('Call timeout (ms)', String(provider?.call_timeout_ms ?? ''), {
    type: 'number',
    placeholder: '300000',
  });
  const rows = h('div', { class: 'header-rows' });
  const addRow = (/** @type {string} */ key = '', /** @type {string} */ value = '') => {
    const row = h(
      'div',
      { class: 'header-row' },
      h('input', { type: 'text', 'aria-label': 'Header name', placeholder: 'Authorization', value: key }),
      h('input', { type: 'text', 'aria-label': 'Header value', placeholder: 'Bearer …', value }),
    );
    row.append(
      h(
        'button',
        { type: 'button', class: 'ghost', 'aria-label': 'Remove this header', onclick: () => row.remove() },
        '✕',
      ),
    );
    rows.append(row);
    return row;
  };
  for (const [key, value] of Object.entries(provider?.headers ?? {})) addRow(key, String(value));

  const alert = h('div', { class: 'alert-slot' });
  const save = h('button', { type: 'submit', class: 'primary' }, provider ? 'Save changes' : 'Add');
  const cancel = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => form.closest('dialog')?.close() },
    'Cancel',
  );
  const form = h(
    'form',
    { novalidate: true, class: 'stack' },
    name.field,
    url.field,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Headers'),
      h('p', { class: 'hint' }, 'Sent with every request to the server, e.g. its API key. Stored encrypted.'),
      rows,
      h(
        'button',
        { type: 'button', class: 'secondary small', onclick: () => addRow().querySelector('input')?.focus() },
        'Add header',
      ),
    ),
    h('div', { class: 'two' }, timeout.field, callTimeout.field),
    alert,
    h('div', { class: 'actions end' }, cancel, save),
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    alert.replaceChildren();
    /** @type {Record<string, string>} */
    const headers = {};
    for (const row of rows.querySelectorAll('.header-row')) {
      const [key, value] = [...row.querySelectorAll('input')].map((input) => input.value.trim());
      if (key) headers[key] = value ?? '';
    }
    /** @type {Record<string, unknown>} */
    const body = { name: name.input.value.trim(), server_url: url.input.value.trim(), headers };
    if (timeout.input.value) body.timeout_ms = Number(timeout.input.value);
    if (callTimeout.input.value) body.call_timeout_ms = Number(callTimeout.input.value);
    save.disabled = true;
    save.textContent = 'Connecting…';
    try {
      await submit(body);
    } catch (error) {
      const fields = error instanceof ApiError && error.fields ? Object.entries(error.fields) : [];
      alert.append(
        h(
          'div',
          { class: 'alert', role: 'alert' },
          h('p', {}, error instanceof Error ? error.message : String(error)),
          fields.length > 1 &&
            h(
              'ul',
              {},
              fields.map(([field, problem]) => h('li', {}, `${field} ${problem}`)),
            ),
        ),
      );
    } finally {
      save.disabled = false;
      save.textContent = provider ? 'Save changes' : 'Add';
    }
  });
  return form;
}

/**
 * @param {string} label
 * @param {string} value
 * @param {{ required?: boolean, type?: string, placeholder?: string, maxlength?: number, hint?: string }} options
 */
function textField(label, value, { hint, required, ...attributes }) {
  const id = uid('field');
  const input = h('input', {
    id,
    type: 'text',
    ...attributes,
    'aria-required': required ? 'true' : undefined,
    value,
  });
  if (hint) input.setAttribute('aria-describedby', `${id}-hint`);
  const field = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint && h('p', { class: 'hint', id: `${id}-hint` }, hint),
    input,
  );
  return { field, input };
}
