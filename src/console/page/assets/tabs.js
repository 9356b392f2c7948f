import { h, uid } from './dom.js';

/**
 * Tabs as the WAI-ARIA Authoring Practices describe them: one tab in the Tab order, the arrow keys,
 * Home and End move between tabs, and the selected tab shows its panel.
 * @param {string} label
 * @param {{ label: string, panel: Node }[]} tabs
 */
export function tabList(label, tabs) {
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @type {HTMLElement[]} */
  const panels = [];
  const select = (/** @type {number} */ index, focus = false) => {
    buttons.forEach((button, i) => {
      button.setAttribute('aria-selected', String(i === index));
      button.tabIndex = i === index ? 0 : -1;
      panels[i]?.toggleAttribute('hidden', i !== index);
    });
    if (focus) buttons[index]?.focus();
  };
  for (const [index, tab] of tabs.entries()) {
    const tabId = uid('tab');
    const panelId = uid('panel');
    buttons.push(
      h(
        'button',
        { type: 'button', role: 'tab', id: tabId, 'aria-controls': panelId, onclick: () => select(index) },
        tab.label,
      ),
    );
    panels.push(
      h('div', { role: 'tabpanel', id: panelId, 'aria-labelledby': tabId, class: 'tab-panel' }, tab.panel),
    );
  }
  const list = h('div', { role: 'tablist', 'aria-label': label, class: 'tabs' }, buttons);
  list.addEventListener('keydown', (event) => {
    const current = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (current < 0) return;
    const last = buttons.length - 1;
    const next = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    select(next > last ? 0 : next < 0 ? last : next, true);
  });
  select(0);
  return h('div', { class: 'tab-set' }, list, panels);
}
