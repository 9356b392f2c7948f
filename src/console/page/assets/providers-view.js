import { request } from './api.js';
import { confirmAction, openDialog } from './dialog.js';
import { h, replace, when } from './dom.js';
import { providerForm } from './provider-form.js';
import { toast } from './toast.js';

/**
 * The tool providers: remote MCP servers the host's apps may call, through the tool provider
 * console (its own API, mounted where the host says). List, add, edit, refresh and delete.
 * @param {HTMLElement} main
 * @param {URL} base the tool provider console's root
 */
export async function providersView(main, base) {
  const alert = h('div', { class: 'alert-slot' });
  const list = h('ul', { class: 'provider-grid' });
  const add = h('button', { type: 'button', class: 'primary' }, 'Add tool provider');

  /** @param {string} method @param {string} path @param {unknown} [body] */
  const call = (method, path, body) => request(base, method, path, body);

  const draw = async () => {
    /** @type {any[]} */
    const providers = await call('GET', '');
    replace(
      list,
      providers.length === 0
        ? h(
            'li',
            { class: 'card empty' },
            h('p', {}, 'No tool providers yet. Add the URL of an MCP server your apps should call.'),
          )
        : providers.map((provider) => providerCard(provider)),
    );
  };

  /** @param {any} provider */
  const providerCard = (provider) => {
    const path = encodeURIComponent(provider.id);
    const act = async (/** @type {() => Promise<unknown>} */ action, /** @type {string} */ done) => {
      alert.replaceChildren();
      try {
        await action();
        await draw();
        toast(done);
      } catch (error) {
        replace(
          alert,
          h('p', { class: 'alert', role: 'alert' }, error instanceof Error ? error.message : String(error)),
        );
      }
    };
    const edit = () =>
      openDialog(`Edit ${provider.name}`, (close) =>
        providerForm(provider, async (body) => {
          await call('PUT', path, body);
          close();
          await draw();
          toast('Saved');
        }),
      );
    const remove = async () => {
      const confirmed = await confirmAction({
        title: `Delete ${provider.name}?`,
        message: 'Apps that call its tools will fail until it is added again.',
        confirm: 'Delete',
        danger: true,
      });
      if (confirmed) await act(() => call('DELETE', path), 'Deleted');
    };
    const tools = Array.isArray(provider.tools) ? provider.tools : [];
    return h(
      'li',
      { class: 'card' },
      h(
        'div',
        { class: 'card-head' },
        h('h3', {}, provider.name),
        h('span', { class: 'badge' }, `${tools.length} tool${tools.length === 1 ? '' : 's'}`),
      ),
      h('p', {}, h('code', { class: 'masked' }, provider.server_url)),
      Object.keys(provider.headers).length > 0 &&
        h('p', { class: 'hint' }, 'Headers: ', Object.keys(provider.headers).join(', ')),
      tools.length > 0 &&
        h(
          'ul',
          { class: 'chips', 'aria-label': `Tools of ${provider.name}` },
          tools.map((/** @type {any} */ tool) =>
            h('li', { title: tool.description ?? '' }, h('code', {}, tool.name)),
          ),
        ),
      h(
        'p',
        { class: 'hint' },
        provider.tools_updated_at
          ? `Tools listed ${when(provider.tools_updated_at)}`
          : 'Tools not listed yet',
      ),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'secondary', 'aria-label': `Edit ${provider.name}`, onclick: edit },
          'Edit',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            'aria-label': `Refresh tools of ${provider.name}`,
            onclick: () => act(() => call('POST', `${path}/tools/refresh`), 'Tools listed again'),
          },
          'Refresh tools',
        ),
        h('span', { class: 'spacer' }),
        h(
          'button',
          {
            type: 'button',
            class: 'ghost danger-text',
            'aria-label': `Delete ${provider.name}`,
            onclick: remove,
          },
          'Delete',
        ),
      ),
    );
  };

  add.addEventListener('click', () =>
    openDialog('Add a tool provider', (close) =>
      providerForm(null, async (body) => {
        await call('POST', '', body);
        close();
        await draw();
        toast('Added');
      }),
    ),
  );

  replace(
    main,
    h(
      'section',
      { class: 'providers', 'aria-labelledby': 'providers-title' },
      h(
        'div',
        { class: 'page-head' },
        h(
          'div',
          {},
          h('h2', { id: 'providers-title', tabindex: '-1' }, 'Tool providers'),
          h(
            'p',
            { class: 'muted' },
            'Remote MCP servers your apps can call. Their URLs and headers are stored encrypted and shown masked.',
          ),
        ),
        add,
      ),
      alert,
      list,
    ),
  );
  await draw();
}
