import { get } from './api.js';
import { modeName, showApp } from './app-detail.js';
import { h, replace } from './dom.js';

/**
 * The apps, each with its server's state, beside the selected app (`#/apps/<id>`). On a narrow
 * screen the list and the app take turns.
 * @param {HTMLElement} main
 * @param {string | undefined} selectedId
 * @param {boolean} focus whether to move the focus to the app (the person chose it)
 */
export async function appsView(main, selectedId, focus) {
  /** @type {any[]} */
  const apps = await get('apps');
  const selected = apps.find((app) => app.id === selectedId);
  const list = h('ul', { class: 'app-list' });
  const detail = h('div', { class: 'detail' });

  const drawList = () =>
    replace(
      list,
      apps.map((app) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              href: `#/apps/${encodeURIComponent(app.id)}`,
              'aria-current': app.id === selectedId ? 'page' : undefined,
            },
            h('span', { class: 'app-name' }, app.name),
            h('span', { class: 'app-meta' }, modeName(app.mode)),
            stateBadge(app.server),
          ),
        ),
      ),
    );
  drawList();

  replace(
    main,
    h(
      'div',
      { class: `split${selected ? ' has-selection' : ''}` },
      h(
        'nav',
        { class: 'sidebar', 'aria-labelledby': 'apps-title' },
        h('h2', { id: 'apps-title' }, 'Apps'),
        list,
      ),
      detail,
    ),
  );
  if (apps.length === 0) {
    replace(detail, h('div', { class: 'card empty' }, h('p', {}, 'There are no apps yet.')));
  } else if (selected) {
    const index = apps.indexOf(selected);
    showApp(detail, selected, (app) => {
      apps[index] = app;
      drawList();
    });
    if (focus) /** @type {HTMLElement | null} */ (detail.querySelector('h2'))?.focus();
  } else {
    replace(
      detail,
      h(
        'div',
        { class: 'card empty placeholder' },
        h('h2', { class: 'empty-title' }, 'Publish your apps as MCP servers'),
        h('p', {}, 'Choose an app to publish it, share its URL, rotate its code or try its tool.'),
      ),
    );
  }
}

/** @param {any} server */
function stateBadge(server) {
  if (!server) return h('span', { class: 'badge outline' }, 'Not published');
  return server.status === 'active'
    ? h('span', { class: 'badge success' }, 'Active')
    : h('span', { class: 'badge muted' }, 'Inactive');
}
