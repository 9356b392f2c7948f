import { h, uid } from './dom.js';

/**
 * A form generated from a tool's `inputSchema` (a JSON Schema object): one field per property, in
 * the schema's order. Strings become text fields (a text area when long or unbounded), `enum`s a
 * select, numbers a number field, booleans a checkbox, and anything else (objects, arrays, files)
 * a JSON text area.
 */

/**
 * @typedef {{ name: string, label: string, schema: Record<string, any>, required: boolean, kind: Kind,
 *   control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, error: HTMLElement }} Field
 * @typedef {'text' | 'long-text' | 'choice' | 'number' | 'boolean' | 'json'} Kind
 */

/** Strings this long or unbounded get a text area. */
const LONG_TEXT = 256;

/** @param {Record<string, any>} schema @returns {Kind} */
function kindOf(schema) {
  if (Array.isArray(schema.enum) && schema.enum.every((option) => typeof option === 'string'))
    return 'choice';
  switch (schema.type) {
    case 'string':
      return typeof schema.maxLength === 'number' && schema.maxLength <= LONG_TEXT ? 'text' : 'long-text';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'json';
  }
}

/**
 * @param {Record<string, any>} inputSchema
 * @param {Map<string, string>} [labels] a label per property, as people read it (the app form's `label`)
 * @returns {{ element: HTMLElement, read(): { values: Record<string, unknown>, valid: boolean }, focusFirst(): void }}
 */
export function schemaForm(inputSchema, labels = new Map()) {
  const properties = inputSchema?.properties ?? {};
  const required = new Set(Array.isArray(inputSchema?.required) ? inputSchema.required : []);
  /** @type {Field[]} */
  const fields = Object.entries(properties).map(([name, schema]) =>
    fieldFor(name, schema ?? {}, required.has(name), labels.get(name)),
  );
  const element = h(
    'div',
    { class: 'fields' },
    fields.length === 0 && h('p', { class: 'muted' }, 'This tool takes no arguments.'),
    fields.map(render),
  );
  return {
    element,
    read() {
      const values = /** @type {Record<string, unknown>} */ ({});
      let valid = true;
      for (const field of fields) {
        const outcome = readField(field);
        field.error.textContent = outcome.problem ?? '';
        field.control.setAttribute('aria-invalid', String(outcome.problem !== undefined));
        if (outcome.problem !== undefined) {
          if (valid) field.control.focus();
          valid = false;
        } else if (outcome.value !== undefined) values[field.name] = outcome.value;
      }
      return { values, valid };
    },
    focusFirst: () => fields[0]?.control.focus(),
  };
}

/**
 * @param {string} name @param {Record<string, any>} schema @param {boolean} required
 * @param {string} [label] @returns {Field}
 */
function fieldFor(name, schema, required, label) {
  const kind = kindOf(schema);
  const id = uid(`arg-${name.replace(/[^A-Za-z0-9_-]/g, '')}`);
  const given = schema.default;
  /** @type {Field['control']} */
  let control;
  if (kind === 'choice') {
    control = h(
      'select',
      { id },
      !required && h('option', { value: '' }, '(none)'),
      schema.enum.map((/** @type {string} */ option) =>
        h('option', { value: option, selected: option === given }, option),
      ),
    );
  } else if (kind === 'boolean') {
    control = h('input', { id, type: 'checkbox', checked: given === true });
  } else if (kind === 'number') {
    const step = schema.type === 'integer' ? '1' : 'any';
    control = h('input', {
      id,
      type: 'number',
      step,
      inputmode: 'decimal',
      value: given === undefined ? '' : String(given),
    });
  } else if (kind === 'text') {
    control = h('input', {
      id,
      type: 'text',
      maxlength: schema.maxLength,
      value: typeof given === 'string' ? given : '',
    });
  } else {
    const text = given === undefined ? '' : kind === 'json' ? JSON.stringify(given, null, 2) : String(given);
    control = h('textarea', {
      id,
      rows: kind === 'json' ? 4 : 5,
      maxlength: kind === 'long-text' ? schema.maxLength : undefined,
      spellcheck: kind === 'json' ? 'false' : undefined,
      class: kind === 'json' ? 'code' : undefined,
      placeholder: kind === 'json' ? jsonPlaceholder(schema) : undefined,
      value: text,
    });
  }
  if (required) control.setAttribute('aria-required', 'true');
  return {
    name,
    label: label ?? schema.title ?? name,
    schema,
    required,
    kind,
    control,
    error: h('p', { class: 'field-error', id: `${id}-error` }),
  };
}

/** @param {Field} field */
function render(field) {
  const { control, schema } = field;
  const hintId = `${control.id}-hint`;
  const described = [
    typeof schema.description === 'string' && schema.description ? hintId : '',
    field.error.id,
  ];
  control.setAttribute('aria-describedby', described.filter(Boolean).join(' '));
  const label = h(
    'label',
    { for: control.id },
    h('span', { class: 'name' }, field.label),
    // The argument's name too, as the model sends it, when the label says something else.
    field.label !== field.name ? [' ', h('code', { class: 'variable' }, field.name)] : null,
    field.required ? [' ', h('span', { class: 'badge required' }, 'required')] : null,
    field.kind === 'json' ? [' ', h('span', { class: 'badge' }, 'JSON')] : null,
  );
  const hint = described[0] ? h('p', { class: 'hint', id: hintId }, schema.description) : null;
  if (field.kind === 'boolean') {
    return h('div', { class: 'field check' }, control, h('div', {}, label, hint, field.error));
  }
  return h('div', { class: 'field' }, label, hint, control, field.error);
}

/** @param {Record<string, any>} schema */
function jsonPlaceholder(schema) {
  const url = schema.properties?.url ?? schema.items?.properties?.url;
  if (url) return schema.type === 'array' ? '[{ "url": "https://…" }]' : '{ "url": "https://…" }';
  return schema.type === 'array' ? '[ … ]' : '{ … }';
}

/** @param {Field} field @returns {{ value?: unknown, problem?: string }} */
function readField({ control, kind, required }) {
  if (kind === 'boolean') return { value: /** @type {HTMLInputElement} */ (control).checked };
  const text = control.value;
  if (text.trim() === '') return required ? { problem: 'This field is required.' } : {};
  if (kind === 'number') {
    const value = Number(text);
    return Number.isFinite(value) ? { value } : { problem: 'Enter a number.' };
  }
  if (kind === 'json') {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { problem: 'Enter valid JSON.' };
    }
  }
  return { value: text };
}
