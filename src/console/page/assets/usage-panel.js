import { get } from './api.js';
import { h, replace } from './dom.js';

const HOUR = 3600;
const SVG = 'http://www.w3.org/2000/svg';
const HOURS = 24;

/**
 * An SVG element: the page draws its chart with plain SVG, no chart library.
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {(Node | string)[]} children
 */
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/** @param {number} hour unix seconds */
const hourLabel = (hour) => `${new Date(hour * 1000).toISOString().slice(11, 13)}:00 UTC`;

/** How a caller is named: a key by its name, a signed-in user by the subject, else the code's holder. @param {any} caller */
export const callerName = (caller) =>
  caller.kind === 'key'
    ? `Key ${caller.name ?? caller.id}`
    : caller.kind === 'oauth'
      ? `User ${caller.id}`
      : 'Holder of the URL';

/**
 * A server's (or toolset's) usage of the last 24 hours (docs/usage.md): calls and errors per hour
 * as a bar chart, and its top callers. Filled in once the counts arrive; they are written every
 * few seconds, so the last minutes may be missing.
 * @param {string} serverId
 */
export function usagePanel(serverId) {
  const body = h('div', { class: 'usage-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const section = h(
    'section',
    { class: 'card usage', 'aria-labelledby': `usage-${serverId}` },
    h('h3', { id: `usage-${serverId}` }, 'Usage, last 24 hours'),
    body,
  );
  load(serverId, body);
  return section;
}

/** @param {string} serverId @param {HTMLElement} body */
async function load(serverId, body) {
  // The hour under way is the last bar.
  const to = Math.floor(Date.now() / 1000 / HOUR) * HOUR + HOUR;
  const from = to - HOURS * HOUR;
  /** @param {string} group */
  const path = (group) =>
    `servers/${encodeURIComponent(serverId)}/usage?from=${from}&to=${to}&group_by=${group}`;
  try {
    const [hours, callers] = await Promise.all([get(path('hour')), get(path('caller'))]);
    replace(body, chart(hours.data, from), topCallers(callers.data));
  } catch (error) {
    replace(
      body,
      h('p', { class: 'muted' }, `Usage cannot be shown: ${error instanceof Error ? error.message : error}`),
    );
  }
}

/**
 * One bar per hour: its height the calls, its lower part in the error colour the errors.
 * @param {any[]} rows @param {number} from
 */
function chart(rows, from) {
  const byHour = new Map(rows.map((row) => [row.hour, row]));
  const max = Math.max(1, ...rows.map((row) => row.calls));
  const calls = rows.reduce((sum, row) => sum + row.calls, 0);
  const errors = rows.reduce((sum, row) => sum + row.errors, 0);
  const summary = `${calls} calls, ${errors} errors in the last 24 hours`;
  const bars = [];
  for (let index = 0; index < HOURS; index++) {
    const hour = from + index * HOUR;
    const row = byHour.get(hour) ?? { calls: 0, errors: 0 };
    const height = (row.calls / max) * 58;
    const failed = (row.errors / max) * 58;
    bars.push(
      svg(
        'g',
        { class: 'usage-hour', 'data-hour': hour },
        svg('title', {}, `${hourLabel(hour)}: ${row.calls} calls, ${row.errors} errors`),
        svg('rect', { class: 'usage-calls', x: index * 10 + 1, y: 60 - height, width: 8, height }),
        svg('rect', { class: 'usage-errors', x: index * 10 + 1, y: 60 - failed, width: 8, height: failed }),
      ),
    );
  }
  return h(
    'figure',
    { class: 'usage-chart' },
    svg(
      'svg',
      { viewBox: `0 0 ${HOURS * 10} 60`, role: 'img', 'aria-label': summary, preserveAspectRatio: 'none' },
      ...bars,
    ),
    h(
      'div',
      { class: 'usage-axis muted', 'aria-hidden': 'true' },
      h('span', {}, hourLabel(from)),
      h('span', {}, 'now'),
    ),
    h(
      'figcaption',
      { class: 'muted' },
      h('span', { class: 'legend calls' }, 'Calls'),
      ' ',
      h('span', { class: 'legend errors' }, 'Errors'),
      ` · ${summary}`,
    ),
  );
}

/** The five callers with the most calls. @param {any[]} rows */
function topCallers(rows) {
  if (rows.length === 0) return h('p', { class: 'muted' }, 'No calls in the last 24 hours.');
  return h(
    'table',
    { class: 'top-callers' },
    h('caption', {}, 'Top callers'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Caller'),
        h('th', { scope: 'col' }, 'Calls'),
        h('th', { scope: 'col' }, 'Errors'),
      ),
    ),
    h(
      'tbody',
      {},
      rows
        .slice(0, 5)
        .map((row) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, callerName(row.caller)),
            h('td', {}, String(row.calls)),
            h('td', {}, String(row.errors)),
          ),
        ),
    ),
  );
}
