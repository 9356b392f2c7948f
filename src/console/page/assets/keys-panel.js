import { get, send } from './api.js';
import { confirmAction } from './dialog.js';
import { h, replace, uid, when } from './dom.js';
import { tabList } from './tabs.js';
import { copy, toast } from './toast.js';

/**
 * The caller keys of a `"key"` server (docs/keys.md): make one (its secret shown once, with
 * Copy and the client snippets that send it), rotate one with a grace for the old secret, revoke
 * one, and when each was last used.
 */

const GRACES = /** @type {[string, number][]} */ ([
  ['None: the old secret stops at once', 0],
  ['1 hour', 3600],
  ['1 day', 86_400],
  ['7 days', 604_800],
]);

/**
 * Ready-to-paste client set-ups that send a key in a header.
 * @param {string} name
 * @param {string} url
 * @param {string} key
 */
export function keySnippets(name, url, key) {
  const bearer = `Bearer ${key}`;
  const headers = { Authorization: bearer };
  const json = (/** @type {unknown} */ value) => JSON.stringify(value, null, 2);
  return [
    {
      label: 'Claude Desktop',
      text: json({
        mcpServers: {
          [name]: { command: 'npx', args: ['mcp-remote', url, '--header', `Authorization: ${bearer}`] },
        },
      }),
    },
    {
      label: 'Claude Code',
      text: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${bearer}"`,
    },
    { label: 'Cursor', text: json({ mcpServers: { [name]: { url, headers } } }) },
    { label: 'VS Code', text: json({ servers: { [name]: { type: 'http', url, headers } } }) },
  ];
}

/**
 * @param {{ id: string }} app
 * @param {any} server
 * @param {string | null} url the server's full URL, when the page knows it
 * @param {(mode: string) => void} setAuthMode turns keys on (`key`) or off (`code`)
 */
export function keysPanel(app, server, url, setAuthMode) {
  const titleId = uid('keys');
  if (server.auth_mode !== 'key') {
    return h(
      'section',
      { class: 'card', 'aria-labelledby': titleId },
      h('h3', { id: titleId }, 'Caller keys'),
      h('p', { class: 'hint' }, 'Give each client a key of its own, revocable alone, on top of the URL.'),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => setAuthMode('key') },
          'Require caller keys',
        ),
      ),
    );
  }
  const list = h('div', { class: 'keys-list' }, h('p', { class: 'muted' }, 'Loading keys…'));
  const fresh = h('div', { class: 'fresh-key' });
  const nameId = uid('key-name');
  const graceId = uid('key-grace');
  const nameField = h('input', {
    id: nameId,
    type: 'text',
    maxlength: '255',
    placeholder: 'e.g. ci-pipeline',
  });
  const grace = h(
    'select',
    { id: graceId },
    GRACES.map(([label, seconds]) => h('option', { value: String(seconds) }, label)),
  );
  const path = `servers/${encodeURIComponent(server.id)}/keys`;
  const name = app.id.replace(/[^A-Za-z0-9_-]/g, '-') || 'server';

  /** Shows a secret once, with Copy and the snippets that use it. @param {any} key @param {string} done */
  const showSecret = (key, done) => {
    const field = h('input', {
      type: 'text',
      readonly: true,
      value: key.key,
      class: 'code',
      'aria-label': 'New key',
    });
    replace(
      fresh,
      h(
        'div',
        { class: 'alert success', role: 'status' },
        h('p', {}, `${done} “${key.name}”. This is the only time its secret is shown: copy it now.`),
        h(
          'div',
          { class: 'url-row' },
          field,
          h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => copy(key.key, field) },
            'Copy key',
          ),
        ),
        tabList(
          'Connect with this key',
          keySnippets(name, url ?? '<MCP server URL>', key.key).map((snippet) => ({
            label: snippet.label,
            panel: h('textarea', {
              class: 'code snippet',
              readonly: true,
              rows: Math.min(10, snippet.text.split('\n').length),
              'aria-label': `${snippet.label} key snippet`,
              value: snippet.text,
            }),
          })),
        ),
      ),
    );
  };

  const load = async () => {
    try {
      draw((await get(path)).data);
    } catch (error) {
      replace(
        list,
        h('p', { class: 'alert', role: 'alert' }, error instanceof Error ? error.message : String(error)),
      );
    }
  };

  /** @param {any[]} keys */
  const draw = (keys) => {
    if (keys.length === 0)
      return replace(list, h('p', { class: 'muted' }, 'No keys yet: no client can call this server.'));
    replace(
      list,
      h(
        'ul',
        { class: 'keys' },
        keys.map((key) => {
          const now = Date.now() / 1000;
          const state = key.revoked_at
            ? 'Revoked'
            : key.expires_at && key.expires_at <= now
              ? 'Expired'
              : key.grace_until && key.grace_until > now
                ? `Rotated: the old secret works until ${when(key.grace_until)}`
                : 'Active';
          const live = !key.revoked_at;
          return h(
            'li',
            { class: 'key' },
            h('strong', {}, key.name),
            ' ',
            h('code', {}, `mcpk_${key.prefix}_…`),
            h(
              'span',
              { class: 'muted' },
              ` · ${state} · last used ${key.last_used_at ? when(key.last_used_at) : 'never'}`,
            ),
            live &&
              h(
                'span',
                { class: 'actions key-actions' },
                h(
                  'button',
                  { type: 'button', class: 'secondary small', onclick: () => rotate(key) },
                  `Rotate ${key.name}`,
                ),
                h(
                  'button',
                  { type: 'button', class: 'ghost danger-text small', onclick: () => revoke(key) },
                  `Revoke ${key.name}`,
                ),
              ),
          );
        }),
      ),
    );
  };

  /** @param {() => Promise<any>} work @param {string} done */
  const act = async (work, done) => {
    try {
      const key = await work();
      if (key?.key) showSecret(key, done);
      else toast(done);
      await load();
    } catch (error) {
      replace(
        fresh,
        h('p', { class: 'alert', role: 'alert' }, error instanceof Error ? error.message : String(error)),
      );
    }
  };

  const make = async () => {
    await act(() => send('POST', path, { name: nameField.value }), 'Made the key');
    if (fresh.querySelector('[aria-label="New key"]')) nameField.value = '';
  };

  /** @param {any} key */
  const rotate = async (key) => {
    const seconds = Number(grace.value);
    const graceText = seconds
      ? `keeps working for ${grace.selectedOptions[0]?.textContent}`
      : 'stops working at once';
    const confirmed = await confirmAction({
      title: `Rotate ${key.name}?`,
      message: `The key gets a new secret; the old one ${graceText}.`,
      confirm: 'Rotate key',
      danger: true,
    });
    if (confirmed)
      await act(
        () => send('POST', `${path}/${encodeURIComponent(key.id)}/rotate`, { grace_seconds: seconds }),
        'Rotated the key',
      );
  };

  /** @param {any} key */
  const revoke = async (key) => {
    const confirmed = await confirmAction({
      title: `Revoke ${key.name}?`,
      message: 'Its clients are refused at once. This cannot be undone: make a new key instead.',
      confirm: 'Revoke key',
      danger: true,
    });
    if (confirmed)
      await act(() => send('DELETE', `${path}/${encodeURIComponent(key.id)}`), `Revoked ${key.name}`);
  };

  void load();
  return h(
    'section',
    { class: 'card', 'aria-labelledby': titleId },
    h('div', { class: 'card-head' }, h('h3', { id: titleId }, 'Caller keys')),
    h(
      'p',
      { class: 'hint' },
      'Each client sends its own key as Authorization: Bearer <key>. Only a hash of each key is kept: its secret is shown once.',
    ),
    fresh,
    list,
    h(
      'form',
      {
        class: 'key-form',
        onsubmit: (/** @type {Event} */ event) => {
          event.preventDefault();
          void make();
        },
      },
      h('label', { for: nameId, class: 'label' }, 'Key name'),
      nameField,
      h('button', { type: 'submit', class: 'primary' }, 'Make key'),
    ),
    h('label', { for: graceId, class: 'label' }, 'Grace for the old secret when rotating'),
    grace,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: 'ghost', onclick: () => setAuthMode('code') },
        'Stop requiring keys',
      ),
    ),
  );
}
