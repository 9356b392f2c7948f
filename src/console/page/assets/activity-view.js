import { get } from './api.js';
import { h, replace } from './dom.js';

/** What each action of the audit log reads as. */
const ACTIONS = /** @type {Record<string, string>} */ ({
  'server.publish': 'Published a server',
  'server.update': 'Edited a server',
  'server.rotate': 'Rotated a server’s code',
  'server.unpublish': 'Unpublished a server',
  'toolset.create': 'Created a toolset',
  'toolset.update': 'Edited a toolset',
  'toolset.rotate': 'Rotated a toolset’s code',
  'toolset.delete': 'Deleted a toolset',
  'key.create': 'Made a key',
  'key.rotate': 'Rotated a key',
  'key.revoke': 'Revoked a key',
  'provider.create': 'Added a tool provider',
  'provider.update': 'Edited a tool provider',
  'provider.refresh': 'Refreshed a tool provider',
  'provider.delete': 'Deleted a tool provider',
});

/** @param {number} seconds */
const utc = (seconds) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** What a record's details say, on one line. @param {Record<string, unknown>} details */
function detailsText(details) {
  return Object.entries(details)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

/**
 * The tenant's audit log (`#/activity`, docs/usage.md): who changed what and when, newest first,
 * 50 at a time with "Load more".
 * @param {HTMLElement} main
 */
export async function activityView(main) {
  const rows = h('tbody', {});
  const more = h('div', { class: 'actions' });
  const section = h(
    'section',
    { class: 'card activity', 'aria-labelledby': 'activity-title' },
    h('h2', { id: 'activity-title', tabindex: '-1' }, 'Activity'),
    h(
      'table',
      { class: 'activity-log' },
      h('caption', { class: 'muted' }, 'Every change made in the console, newest first.'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['When', 'Who', 'What', 'Details'].map((name) => h('th', { scope: 'col' }, name)),
        ),
      ),
      rows,
    ),
    more,
  );
  /** @param {string | null} cursor */
  const page = async (cursor) => {
    const reply = await get(`audit?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const record of reply.data) {
      rows.append(
        h(
          'tr',
          {},
          h('td', {}, h('time', { datetime: new Date(record.at * 1000).toISOString() }, utc(record.at))),
          h('td', {}, record.actor ?? '—'),
          h('td', {}, ACTIONS[record.action] ?? record.action),
          h('td', { class: 'details' }, detailsText(record.details)),
        ),
      );
    }
    if (reply.data.length === 0 && !cursor) {
      rows.append(h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'Nothing has changed yet.')));
    }
    replace(
      more,
      reply.next_cursor &&
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => page(reply.next_cursor) },
          'Load more',
        ),
    );
  };
  await page(null);
  replace(main, section);
}
