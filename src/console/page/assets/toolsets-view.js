import { get, send } from './api.js';
import { connectSnippets, urlBlock } from './connection.js';
import { confirmAction } from './dialog.js';
import { h, replace, uid } from './dom.js';
import { keysPanel } from './keys-panel.js';
import { mcpRequest } from './mcp.js';
import { toast } from './toast.js';
import { toolForm } from './try-it.js';
import { usagePanel } from './usage-panel.js';

/**
 * Toolsets (docs/toolsets.md): several apps behind one URL. The list with a form that makes one
 * from checkboxes of the tenant's apps (or "all published apps"), beside the selected toolset
 * (`#/toolsets/<id>`): its URL and client snippets, its tools to rename, rotate, delete, try a tool.
 * @param {HTMLElement} main
 * @param {string | undefined} selectedId
 * @param {boolean} focus
 */
export async function toolsetsView(main, selectedId, focus) {
  const drawn = location.hash;
  /** @type {[{ data: any[] }, any[]]} */
  const [{ data: toolsets }, apps] = await Promise.all([get('toolsets'), get('apps')]);
  // The person moved on while the lists were read: the view of the newer address draws instead.
  if (location.hash !== drawn) return;
  const selected = toolsets.find((toolset) => toolset.id === selectedId);
  const names = new Map(apps.map((app) => [app.id, app.name]));
  const list = h(
    'ul',
    { class: 'app-list' },
    toolsets.map((toolset) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: `#/toolsets/${toolset.id}`,
            'aria-current': toolset.id === selectedId ? 'page' : undefined,
          },
          h('span', { class: 'app-name' }, toolset.name),
          h(
            'span',
            { class: 'app-meta' },
            toolset.all_published ? 'All published apps' : `${toolset.apps.length} apps`,
          ),
        ),
      ),
    ),
  );
  const detail = h('div', { class: 'detail' }, selected ? toolsetDetail(selected, names) : createForm(apps));
  replace(
    main,
    h(
      'div',
      { class: `split${selected ? ' has-selection' : ''}` },
      h(
        'nav',
        { class: 'sidebar', 'aria-labelledby': 'toolsets-title' },
        h('h2', { id: 'toolsets-title' }, 'Toolsets'),
        list,
        selected && h('a', { href: '#/toolsets', class: 'button secondary' }, 'New toolset'),
      ),
      detail,
    ),
  );
  if (focus) /** @type {HTMLElement | null} */ (detail.querySelector('h2'))?.focus();
}

/** A line under a form that says what went wrong: the console's message names every bad field. */
function failure(/** @type {HTMLElement} */ where, /** @type {unknown} */ error) {
  replace(
    where,
    h('p', { class: 'alert', role: 'alert' }, error instanceof Error ? error.message : String(error)),
  );
}

/** @param {any[]} apps */
function createForm(apps) {
  const nameId = uid('toolset-name');
  const name = h('input', { id: nameId, type: 'text', required: true, maxlength: 255 });
  const all = h('input', { type: 'checkbox', id: uid('all-published') });
  const boxes = apps.map((app) => ({ app, box: h('input', { type: 'checkbox', id: uid('member') }) }));
  const fieldset = h(
    'fieldset',
    {},
    h('legend', {}, 'Apps'),
    boxes.map(({ app, box }) => h('div', { class: 'check' }, box, h('label', { for: box.id }, app.name))),
  );
  all.addEventListener('change', () => {
    fieldset.disabled = all.checked;
  });
  const problem = h('div', {});
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-toolset-title' },
    h('h2', { id: 'new-toolset-title', tabindex: '-1' }, 'New toolset'),
    h('p', { class: 'hint' }, 'One URL for several apps: a client lists one tool per app.'),
    h('label', { for: nameId, class: 'label' }, 'Toolset name'),
    name,
    h('div', { class: 'check' }, all, h('label', { for: all.id }, 'All published apps')),
    fieldset,
    problem,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create toolset')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = all.checked
      ? { name: name.value, all_published: true }
      : {
          name: name.value,
          apps: boxes.filter(({ box }) => box.checked).map(({ app }) => ({ app_id: app.id })),
        };
    try {
      const created = await send('POST', 'toolsets', body);
      toast('Toolset created');
      location.hash = `#/toolsets/${created.id}`;
    } catch (error) {
      failure(problem, error);
    }
  });
  return form;
}

/** @param {any} toolset @param {Map<string, string>} names */
function toolsetDetail(toolset, names) {
  const { url, block } = urlBlock(toolset);
  const titleId = uid('toolset-connection');
  const reload = () => window.dispatchEvent(new HashChangeEvent('hashchange'));
  const rotate = async () => {
    const sure = await confirmAction({
      title: 'Rotate the code?',
      message: 'The toolset gets a new URL; clients that use the old one stop working at once.',
      confirm: 'Rotate',
      danger: true,
    });
    if (!sure) return;
    await send('POST', `toolsets/${toolset.id}/refresh`);
    toast('Code rotated');
    reload();
  };
  const remove = async () => {
    const sure = await confirmAction({
      title: 'Delete the toolset?',
      message: 'Its URL stops working; its apps keep their own servers.',
      confirm: 'Delete',
      danger: true,
    });
    if (!sure) return;
    await send('DELETE', `toolsets/${toolset.id}`);
    location.hash = '#/toolsets';
  };
  const slug = toolset.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  /** Turns caller keys on (`key`) or off (`code`). @param {string} mode */
  const setAuthMode = async (mode) => {
    await send('PUT', `toolsets/${toolset.id}`, { auth_mode: mode });
    toast(
      mode === 'key' ? 'Caller keys required: the URL alone no longer works' : 'The URL alone works again',
    );
    reload();
  };
  return h(
    'div',
    {},
    h('h2', { tabindex: '-1' }, toolset.name),
    h(
      'section',
      { class: 'card', 'aria-labelledby': titleId },
      h('div', { class: 'card-head' }, h('h3', { id: titleId }, 'Connection')),
      block,
      h('p', { class: 'hint' }, 'Anyone with this URL can call its tools: share it like a password.'),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary', onclick: rotate }, 'Rotate'),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'ghost danger-text', onclick: remove }, 'Delete'),
      ),
      url !== null && connectSnippets(slug, url, toolset.server_code),
    ),
    toolset.all_published ? null : renameForm(toolset, names, reload),
    // Caller keys and usage work for a toolset as for a one-app server (docs/keys.md, docs/usage.md).
    toolset.auth_mode !== 'oauth' && keysPanel({ id: slug }, toolset, url, setAuthMode),
    usagePanel(toolset.id),
    url !== null && tryTools(url, toolset.status === 'active'),
  );
}

/** The toolset's tools with a name field each: empty takes the name the app gives. */
function renameForm(
  /** @type {any} */ toolset,
  /** @type {Map<string, string>} */ names,
  /** @type {() => void} */ done,
) {
  /** @type {{ member: any, input: HTMLInputElement, row: HTMLElement }[]} */
  const rows = toolset.apps.map((/** @type {any} */ member) => {
    const id = uid('tool-name');
    const app = names.get(member.app_id) ?? member.app_id;
    const input = h('input', {
      id,
      type: 'text',
      value: member.tool_name ?? '',
      placeholder: 'the app’s name',
    });
    return {
      member,
      input,
      row: h('div', {}, h('label', { for: id, class: 'label' }, `Tool name for ${app}`), input),
    };
  });
  const problem = h('div', {});
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'tools-title' },
    h('h3', { id: 'tools-title' }, 'Tools'),
    rows.map((row) => row.row),
    problem,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save tool names')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const apps = rows.map(({ member, input }) => ({ ...member, tool_name: input.value.trim() || null }));
    try {
      await send('PUT', `toolsets/${toolset.id}`, { apps });
      toast('Saved');
      done();
    } catch (error) {
      failure(problem, error);
    }
  });
  return form;
}

/** "Try it": pick one of the toolset's tools, as a client lists them, and call it. */
function tryTools(/** @type {string} */ url, /** @type {boolean} */ active) {
  const body = h('div', { class: 'try-body' });
  const section = h(
    'section',
    { class: 'card try', 'aria-labelledby': 'try-title' },
    h('div', { class: 'card-head' }, h('h3', { id: 'try-title' }, 'Try it')),
    body,
  );
  if (!active) {
    replace(body, h('p', { class: 'notice' }, 'The toolset is inactive.'));
    return section;
  }
  mcpRequest(url, 'tools/list', {}).then(
    (listed) => {
      /** @type {any[]} */
      const tools = listed?.tools ?? [];
      if (tools.length === 0)
        return replace(body, h('p', { class: 'notice' }, 'The toolset serves no tool yet.'));
      const pickId = uid('pick-tool');
      const pick = h(
        'select',
        { id: pickId },
        tools.map((tool) => h('option', { value: tool.name }, tool.name)),
      );
      const form = h('div', {}, toolForm(url, tools[0]));
      pick.addEventListener('change', () => replace(form, toolForm(url, tools[pick.selectedIndex])));
      replace(body, h('label', { for: pickId, class: 'label' }, 'Tool'), pick, form);
    },
    (error) => failure(body, error),
  );
  return section;
}
