import { h, uid } from './dom.js';

/** The tool's hints (MCP `ToolAnnotations`), with what each tells a client. */
const HINTS = [
  ['readOnlyHint', 'Read-only', 'The tool changes nothing.'],
  ['destructiveHint', 'Destructive', 'It may delete or overwrite (meaningful when not read-only).'],
  ['idempotentHint', 'Idempotent', 'Calling it again with the same arguments has no further effect.'],
  ['openWorldHint', 'Open world', 'It reaches the web or other people’s systems.'],
];

/** Dify's limit on a description, in characters. */
const MAX_DESCRIPTION = 255;

/**
 * The tool's settings: its description, a description per parameter, and its hints. Saving sends
 * them all in one edit; an empty description means the app's own.
 * @param {any} app
 * @param {any} server
 * @param {(changes: { description: string, parameters: Record<string, string>, annotations: Record<string, boolean> }) => Promise<boolean>} save
 * @param {string} [notice] said next to the Save button, in place of a toast over the form ("Saved")
 */
export function settingsForm(app, server, save, notice = '') {
  const descriptionId = uid('description');
  const description = h('textarea', {
    id: descriptionId,
    rows: 3,
    maxlength: MAX_DESCRIPTION,
    'aria-describedby': `${descriptionId}-hint`,
    value: server.description,
  });
  const counter = h('span', { class: 'counter', 'aria-hidden': 'true' });
  const count = () => {
    counter.textContent = `${[...description.value].length} / ${MAX_DESCRIPTION}`;
  };
  description.addEventListener('input', count);
  count();

  /** @type {[string, HTMLInputElement][]} */
  const parameters = app.inputs.map((/** @type {any} */ input) => {
    const id = uid('parameter');
    return [
      input.variable,
      h('input', {
        id,
        type: 'text',
        value: server.parameters[input.variable] ?? '',
        placeholder: input.defaultDescription || 'No description',
      }),
    ];
  });

  /** @type {[string, HTMLSelectElement][]} */
  const hints = HINTS.map(([key]) => {
    const stated = server.annotations[key];
    return [
      key,
      h(
        'select',
        { id: uid('hint') },
        h('option', { value: '', selected: stated === undefined }, 'Not stated'),
        h('option', { value: 'true', selected: stated === true }, 'Yes'),
        h('option', { value: 'false', selected: stated === false }, 'No'),
      ),
    ];
  });

  const saveButton = h('button', { type: 'submit', class: 'primary' }, 'Save changes');
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': `${descriptionId}-title` },
    h('div', { class: 'card-head' }, h('h3', { id: `${descriptionId}-title` }, 'Tool settings')),
    h(
      'div',
      { class: 'field' },
      h('label', { for: descriptionId }, 'Description', counter),
      h(
        'p',
        { class: 'hint', id: `${descriptionId}-hint` },
        'What clients and models read about the tool. Leave it empty to use the app’s description.',
      ),
      description,
    ),
    parameters.length > 0 &&
      h(
        'fieldset',
        {},
        h('legend', {}, 'Parameter descriptions'),
        h(
          'p',
          { class: 'hint' },
          'Shown to clients for each input; empty fields use the app form’s wording (shown greyed).',
        ),
        parameters.map(([variable, input], index) =>
          h(
            'div',
            { class: 'field' },
            h('label', { for: input.id }, app.inputs[index].label, ' ', h('code', {}, variable)),
            input,
          ),
        ),
      ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Hints for clients'),
      h(
        'p',
        { class: 'hint' },
        'Clients may ask before calling a tool that is not read-only. Hints, not guarantees.',
      ),
      h(
        'div',
        { class: 'hint-grid' },
        hints.map(([, select], index) => {
          const [, label, help] = HINTS[index] ?? [];
          select.setAttribute('aria-describedby', `${select.id}-hint`);
          return h(
            'div',
            { class: 'field' },
            h('label', { for: select.id }, label),
            select,
            h('p', { class: 'hint', id: `${select.id}-hint` }, help),
          );
        }),
      ),
    ),
    h('div', { class: 'actions' }, saveButton, h('p', { class: 'muted saved' }, notice)),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    saveButton.disabled = true;
    /** @type {Record<string, boolean>} */
    const annotations = {};
    for (const [key, select] of hints) if (select.value !== '') annotations[key] = select.value === 'true';
    /** @type {Record<string, string>} */
    const described = {};
    for (const [variable, input] of parameters)
      if (input.value.trim() !== '') described[variable] = input.value.trim();
    const saved = await save({ description: description.value.trim(), parameters: described, annotations });
    saveButton.disabled = false;
    if (!saved) description.focus();
  });
  return form;
}
