import { ApiError, send } from './api.js';
import { connectionCard } from './connection.js';
import { confirmAction } from './dialog.js';
import { h, replace } from './dom.js';
import { keysPanel } from './keys-panel.js';
import { settingsForm } from './settings-form.js';
import { toast } from './toast.js';
import { tryItPanel } from './try-it.js';
import { usagePanel } from './usage-panel.js';

const MODES = /** @type {Record<string, string>} */ ({
  workflow: 'Workflow',
  chat: 'Chatbot',
  'advanced-chat': 'Chatflow',
  'agent-chat': 'Agent',
  completion: 'Completion',
});

/** @param {string} mode */
export const modeName = (mode) => MODES[mode] ?? mode;

/**
 * One app: its server, or a way to publish one. Every change goes through the console API and
 * redraws the panel with the server it answers; `changed` tells the list.
 * @param {HTMLElement} panel
 * @param {any} app
 * @param {(app: any) => void} changed
 */
export function showApp(panel, app, changed) {
  const alert = h('div', { class: 'alert-slot' });
  /** The last URL a reply carried: a store that keeps codes hashed sends it only once (docs/keys.md). */
  let knownUrl = /** @type {string | null} */ (null);
  /** @param {any} server */
  const urlOf = (server) => {
    if (server.url) knownUrl = new URL(server.url, location.origin).href;
    return knownUrl;
  };
  let trying = false;
  /** What the settings form says next to its Save button once drawn again ("Saved"). */
  let settingsNotice = '';

  /** @param {string} [focusOn] the name of the button to focus once drawn */
  const draw = (focusOn) => {
    const server = app.server;
    replace(
      panel,
      h('a', { href: '#/apps', class: 'back' }, '← All apps'),
      h(
        'header',
        { class: 'detail-head' },
        h('h2', { tabindex: '-1' }, app.name),
        h('p', { class: 'muted' }, modeName(app.mode), ' · ', h('code', {}, app.id)),
        app.description && h('p', {}, app.description),
      ),
      alert,
      server
        ? [
            connectionCard(app, server, { setStatus, rotate, tryIt, unpublish }),
            server.auth_mode !== 'oauth' && keysPanel(app, server, urlOf(server), setAuthMode),
            trying && tryItPanel(server, app.inputs),
            usagePanel(server.id),
            settingsForm(app, server, save, settingsNotice),
          ]
        : h(
            'section',
            { class: 'card empty', 'aria-labelledby': 'publish-title' },
            h('h3', { id: 'publish-title', class: 'empty-title' }, 'Not published'),
            h(
              'p',
              {},
              'Publish this app as an MCP server: it gets a URL with a secret code that MCP clients connect to.',
            ),
            h(
              'div',
              { class: 'actions' },
              h('button', { type: 'button', class: 'primary', onclick: publish }, 'Publish'),
            ),
          ),
    );
    if (focusOn) focusButton(panel, focusOn);
  };

  /**
   * Runs a change; its reply (a server, or `null` once unpublished) replaces the app's server.
   * @param {() => Promise<any>} change
   * @param {string} done what to tell once it worked
   * @param {string} [focusOn]
   * @param {boolean} [inSettings] say it next to the settings' Save button rather than in a toast,
   *   which would float over the form being edited
   */
  const apply = async (change, done, focusOn, inSettings = false) => {
    alert.replaceChildren();
    try {
      app = { ...app, server: await change() };
      changed(app);
      settingsNotice = inSettings ? done : '';
      draw(focusOn);
      settingsNotice = '';
      toast(done, { shown: !inSettings });
      return true;
    } catch (error) {
      showError(alert, error);
      return false;
    }
  };

  async function publish() {
    await apply(
      () => send('POST', `apps/${encodeURIComponent(app.id)}/server`, { parameters: {} }),
      'Published',
      'Copy URL',
    );
  }

  /** @param {string} status */
  async function setStatus(status) {
    const server = app.server;
    if (status === 'inactive') trying = false;
    await apply(
      () => send('PUT', appPath(), { id: server.id, parameters: server.parameters, status }),
      status === 'active' ? 'Activated: the URL works again' : 'Deactivated: the URL answers “not found”',
      status === 'active' ? 'Deactivate' : 'Activate',
    );
  }

  /** Turns caller keys on (`key`) or off (`code`), docs/keys.md. @param {string} mode */
  async function setAuthMode(mode) {
    const server = app.server;
    await apply(
      () => send('PUT', appPath(), { id: server.id, parameters: server.parameters, auth_mode: mode }),
      mode === 'key' ? 'Caller keys required: the URL alone no longer works' : 'The URL alone works again',
      mode === 'key' ? 'Make key' : 'Require caller keys',
    );
  }

  async function rotate() {
    const confirmed = await confirmAction({
      title: 'Rotate the code?',
      message:
        'The server gets a new URL. The current one stops working at once: every client that uses it must be given the new URL.',
      confirm: 'Rotate',
      danger: true,
    });
    if (!confirmed) return focusButton(panel, 'Rotate');
    await apply(
      () => send('POST', `apps/${encodeURIComponent(app.server.id)}/server/refresh`),
      'Code rotated: the old URL no longer works',
      'Copy URL',
    );
  }

  async function unpublish() {
    const confirmed = await confirmAction({
      title: 'Unpublish this app?',
      message: 'Its MCP server is deleted and its URL stops working. Publishing it again gives a new URL.',
      confirm: 'Unpublish',
      danger: true,
    });
    if (!confirmed) return focusButton(panel, 'Unpublish');
    trying = false;
    await apply(() => send('DELETE', appPath()), 'Unpublished', 'Publish');
  }

  function tryIt() {
    trying = true;
    draw();
    /** @type {HTMLElement | null} */ (panel.querySelector('.try'))?.focus();
  }

  /** @param {{ description: string, parameters: Record<string, string>, annotations: Record<string, boolean> }} changes */
  function save(changes) {
    return apply(
      () => send('PUT', appPath(), { id: app.server.id, ...changes }),
      'Saved',
      'Save changes',
      true,
    );
  }

  const appPath = () => `apps/${encodeURIComponent(app.id)}/server`;

  draw();
}

/** @param {HTMLElement} slot @param {unknown} error */
function showError(slot, error) {
  const message = error instanceof Error ? error.message : String(error);
  const fields = error instanceof ApiError && error.fields ? Object.entries(error.fields) : [];
  replace(
    slot,
    h(
      'div',
      { class: 'alert', role: 'alert' },
      h('p', {}, message),
      fields.length > 1 &&
        h(
          'ul',
          {},
          fields.map(([field, problem]) => h('li', {}, `${field} ${problem}`)),
        ),
    ),
  );
}

/** @param {HTMLElement} panel @param {string} name */
function focusButton(panel, name) {
  const button = [...panel.querySelectorAll('button')].find((candidate) => candidate.textContent === name);
  button?.focus();
}
