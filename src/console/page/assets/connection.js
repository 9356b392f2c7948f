import { h, uid } from './dom.js';
import { snippetsFor } from './snippets.js';
import { tabList } from './tabs.js';
import { copy } from './toast.js';

/**
 * The server's connection card: the URL with "Copy URL", what its state means, the actions
 * (activate or deactivate, rotate, try it, unpublish) and the snippets that connect clients.
 * @param {{ id: string }} app
 * @param {any} server
 * @param {{ setStatus(status: string): void, rotate(): void, tryIt(): void, unpublish(): void }} actions
 */
export function connectionCard(app, server, actions) {
  // A store that keeps codes hashed shows the URL only in the reply that made the code (docs/keys.md).
  const hashed = server.url === null;
  const url = hashed ? '' : new URL(server.url, location.origin).href;
  const urlId = uid('server-url');
  const field = h('input', {
    id: urlId,
    type: 'text',
    readonly: true,
    value: url,
    class: 'code url',
    spellcheck: 'false',
  });
  field.addEventListener('focus', () => field.select());
  const active = server.status === 'active';
  const access =
    server.auth_mode === 'oauth'
      ? 'Clients need the URL and a signed-in user (OAuth).'
      : server.auth_mode === 'key'
        ? 'Clients need the URL and a caller key of their own (below), sent as Authorization: Bearer <key>.'
        : 'Anyone with this URL can call the tool: share it like a password.';
  return h(
    'section',
    { class: 'card', 'aria-labelledby': `${urlId}-title` },
    h(
      'div',
      { class: 'card-head' },
      h('h3', { id: `${urlId}-title` }, 'Connection'),
      h('span', { class: `badge ${active ? 'success' : 'muted'}` }, active ? 'Active' : 'Inactive'),
    ),
    hashed
      ? h(
          'p',
          { class: 'hint hashed' },
          `The code (it starts with ${server.code_hint}) is kept hashed: its URL was shown once, when the code was made. Rotate to get a new URL.`,
        )
      : [
          h('label', { for: urlId, class: 'label' }, 'MCP server URL'),
          h(
            'div',
            { class: 'url-row' },
            field,
            h('button', { type: 'button', class: 'secondary', onclick: () => copy(url, field) }, 'Copy URL'),
          ),
        ],
    h(
      'p',
      { class: 'hint' },
      active
        ? access
        : 'Inactive: the URL answers “not found” until you activate the server. Its code is kept.',
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: active ? 'secondary' : 'primary',
          onclick: () => actions.setStatus(active ? 'inactive' : 'active'),
        },
        active ? 'Deactivate' : 'Activate',
      ),
      h('button', { type: 'button', class: 'secondary', onclick: actions.rotate }, 'Rotate'),
      h(
        'button',
        {
          type: 'button',
          class: active ? 'primary' : 'secondary',
          onclick: actions.tryIt,
          disabled: !active || hashed,
        },
        'Try it',
      ),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'ghost danger-text', onclick: actions.unpublish }, 'Unpublish'),
    ),
    !hashed && h('h4', {}, 'Connect a client'),
    !hashed &&
      tabList(
        'Connect a client',
        snippetsFor({ appId: app.id, url, code: server.server_code }).map((snippet) => ({
          label: snippet.label,
          panel: snippetView(snippet),
        })),
      ),
  );
}

/** @param {import('./snippets.js').Snippet} snippet */
function snippetView(snippet) {
  const text = h('textarea', {
    class: 'code snippet',
    readonly: true,
    rows: Math.min(12, snippet.text.split('\n').length),
    spellcheck: 'false',
    'aria-label': `${snippet.label} snippet`,
    value: snippet.text,
  });
  return h(
    'div',
    {},
    h('p', { class: 'hint' }, snippet.hint),
    text,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: 'secondary small', onclick: () => copy(snippet.text, text) },
        `Copy ${snippet.label} snippet`,
      ),
    ),
  );
}
