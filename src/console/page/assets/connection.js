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
  const { url, block } = urlBlock(server);
  const hashed = url === null;
  const titleId = uid('connection');
  const active = server.status === 'active';
  const access =
    server.auth_mode === 'oauth'
      ? 'Clients need the URL and a signed-in user (OAuth).'
      : server.auth_mode === 'key'
        ? 'Clients need the URL and a caller key of their own (below), sent as Authorization: Bearer <key>.'
        : 'Anyone with this URL can call the tool: share it like a password.';
  return h(
    'section',
    { class: 'card', 'aria-labelledby': titleId },
    h(
      'div',
      { class: 'card-head' },
      h('h3', { id: titleId }, 'Connection'),
      h('span', { class: `badge ${active ? 'success' : 'muted'}` }, active ? 'Active' : 'Inactive'),
    ),
    block,
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
    url !== null && connectSnippets(app.id, url, server.server_code),
  );
}

/**
 * A server's or a toolset's URL with "Copy URL"; where the store keeps codes hashed (docs/keys.md)
 * there is none after the reply that made the code, and the block says so (`url` is then `null`).
 * @param {any} server
 * @returns {{ url: string | null, block: any }}
 */
export function urlBlock(server) {
  if (server.url === null) {
    const hint = `The code (it starts with ${server.code_hint}) is kept hashed: its URL was shown once, when the code was made. Rotate to get a new URL.`;
    return { url: null, block: h('p', { class: 'hint hashed' }, hint) };
  }
  const url = new URL(server.url, location.origin).href;
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
  const block = [
    h('label', { for: urlId, class: 'label' }, 'MCP server URL'),
    h(
      'div',
      { class: 'url-row' },
      field,
      h('button', { type: 'button', class: 'secondary', onclick: () => copy(url, field) }, 'Copy URL'),
    ),
  ];
  return { url, block };
}

/**
 * "Connect a client": a tab per client with its snippet for this URL.
 * @param {string} appId @param {string} url @param {string} code
 */
export function connectSnippets(appId, url, code) {
  return [
    h('h4', {}, 'Connect a client'),
    tabList(
      'Connect a client',
      snippetsFor({ appId, url, code }).map((snippet) => ({
        label: snippet.label,
        panel: snippetView(snippet),
      })),
    ),
  ];
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
