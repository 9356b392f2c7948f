import { ConfigurationError } from '../errors/package-errors.js';
import type { AskVariable } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import { defaultOf, maxLengthOf } from './input-form.js';

const ASKABLE = new Set(['text-input', 'paragraph', 'select', 'number', 'checkbox']);

/** One field of a question, checked once at the `ask`. */
export interface AskFieldSpec {
  readonly type: AskVariable['type'];
  readonly variable: string;
  readonly title?: string;
  readonly description?: string;
  readonly required: boolean;
  readonly maxLength?: number;
  /** `select`: the values and what the person reads for each (the value itself without a label). */
  readonly options?: readonly { value: string; label: string }[];
  readonly multiple: boolean;
  readonly legacyEnumNames: boolean;
  readonly integer: boolean;
  readonly default?: unknown;
}

/**
 * The fields of `run.ask` in the flat form, checked: only the types a person can fill in an
 * elicitation form (MCP "Elicitation": a flat object of primitive properties) are accepted; any
 * other is a `ConfigurationError` that names it.
 */
export function parseAskFields(fields: unknown): AskFieldSpec[] {
  if (!Array.isArray(fields) || fields.length === 0) {
    throw invalid('fields must be a non-empty array of input form entries');
  }
  const seen = new Set<string>();
  return fields.map((entry) => {
    const field = flatten(entry);
    if (seen.has(field.variable)) throw invalid(`the field ${field.variable} is named twice`);
    seen.add(field.variable);
    return specOf(field);
  });
}

function flatten(entry: unknown): AskVariable {
  if (!isJsonObject(entry)) throw invalid('each field must be an input form entry (an object)');
  if (typeof entry.type === 'string') return checkType(entry as unknown as AskVariable, entry.type);
  const [type, ...rest] = Object.keys(entry);
  const body = type === undefined ? undefined : entry[type];
  if (type === undefined || rest.length > 0 || !isJsonObject(body))
    throw invalid('each field must be an input form entry such as { select: { variable, options } }');
  return checkType({ ...(body as Omit<AskVariable, 'type'>), type } as AskVariable, type);
}

function checkType(field: AskVariable, type: string): AskVariable {
  const name = typeof field.variable === 'string' && field.variable !== '' ? field.variable : null;
  if (name === null) throw invalid(`a ${type} field has no variable name`);
  if (!ASKABLE.has(type)) {
    throw invalid(
      `the field ${name} is of type ${type}, which a person cannot fill in a client's form; use text-input, paragraph, select, number or checkbox`,
    );
  }
  return field;
}

function specOf(field: AskVariable): AskFieldSpec {
  const spec: {
    -readonly [K in keyof AskFieldSpec]: AskFieldSpec[K];
  } = {
    type: field.type,
    variable: field.variable,
    required: field.required === true,
    multiple: field.type === 'select' && field.multiple === true,
    legacyEnumNames: field.legacy_enum_names === true,
    integer: field.type === 'number' && field.integer === true,
  };
  if (typeof field.label === 'string' && field.label !== '') spec.title = field.label;
  if (typeof field.description === 'string' && field.description !== '') spec.description = field.description;
  const limit = maxLengthOf(field);
  if (limit !== undefined) spec.maxLength = limit;
  if (field.type === 'select') spec.options = optionsOf(field);
  const fallback = defaultOf(field);
  if (fallback !== undefined) spec.default = fallback;
  return spec;
}

function optionsOf(field: AskVariable): { value: string; label: string }[] {
  const options: { value: string; label: string }[] = [];
  const seen = new Set<string>();
  for (const option of field.options ?? []) {
    const value = typeof option === 'string' ? option : option?.value;
    if (typeof value !== 'string' || seen.has(value)) continue;
    seen.add(value);
    const label = typeof option === 'object' && typeof option.label === 'string' ? option.label : value;
    options.push({ value, label });
  }
  if (options.length === 0) throw invalid(`the select field ${field.variable} has no options`);
  return options;
}

const invalid = (message: string) => new ConfigurationError('invalid_fields', `run.ask: ${message}`);

/**
 * The elicitation `requestedSchema` of the fields. `titled`: MCP 2025-11-25 on, where a select whose
 * labels differ from its values is a `oneOf` of `{const, title}` (SEP-1330); before, labels travel
 * as `enumNames`, the only form MCP 2025-06-18 has.
 */
export function requestedSchema(fields: readonly AskFieldSpec[], titled: boolean): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const field of fields) {
    const property: Record<string, unknown> = { ...typeKeywords(field, titled) };
    if (field.title !== undefined) property.title = field.title;
    if (field.description !== undefined) property.description = field.description;
    if (field.default !== undefined) property.default = field.default;
    Object.defineProperty(properties, field.variable, { value: property, enumerable: true, writable: true });
    if (field.required) required.push(field.variable);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

function typeKeywords(field: AskFieldSpec, titled: boolean): Record<string, unknown> {
  switch (field.type) {
    case 'number':
      return { type: field.integer ? 'integer' : 'number' };
    case 'checkbox':
      return { type: 'boolean' };
    case 'select':
      return selectKeywords(field, titled);
    default:
      return field.maxLength === undefined
        ? { type: 'string' }
        : { type: 'string', maxLength: field.maxLength };
  }
}

function selectKeywords(field: AskFieldSpec, titled: boolean): Record<string, unknown> {
  const options = field.options ?? [];
  const values = options.map((option) => option.value);
  const labelled = options.some((option) => option.label !== option.value);
  const choices = options.map((option) => ({ const: option.value, title: option.label }));
  if (field.multiple) {
    const items = labelled && titled ? { anyOf: choices } : { type: 'string', enum: values };
    return field.required ? { type: 'array', minItems: 1, items } : { type: 'array', items };
  }
  if (!labelled) return { type: 'string', enum: values };
  if (titled && !field.legacyEnumNames) return { type: 'string', oneOf: choices };
  return { type: 'string', enum: values, enumNames: options.map((option) => option.label) };
}

/**
 * The values of an accepted answer, or what does not fit. Keys the fields do not name are left
 * out rather than refused; a field left out takes its default.
 */
export function checkAnswer(
  fields: readonly AskFieldSpec[],
  content: unknown,
): { ok: true; values: Record<string, unknown> } | { ok: false; problems: string[] } {
  const given = content === undefined || content === null ? {} : content;
  if (!isJsonObject(given)) return { ok: false, problems: ['the answer is not an object'] };
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const value = Object.hasOwn(given, field.variable) ? given[field.variable] : undefined;
    if (value === undefined || value === null) {
      if (field.default !== undefined) values[field.variable] = field.default;
      else if (field.required) problems.push(`${field.variable} is required`);
      continue;
    }
    const problem = problemOf(field, value);
    if (problem) problems.push(`${field.variable} ${problem}`);
    else Object.defineProperty(values, field.variable, { value, enumerable: true, writable: true });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

function problemOf(field: AskFieldSpec, value: unknown): string | null {
  switch (field.type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      return field.integer && !Number.isInteger(value) ? 'must be a whole number' : null;
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'select': {
      const allowed = (field.options ?? []).map((option) => option.value);
      if (!field.multiple)
        return allowed.includes(value as string) ? null : `must be one of ${allowed.join(', ')}`;
      if (!Array.isArray(value) || !value.every((item) => allowed.includes(item as string)))
        return `must be a list of ${allowed.join(', ')}`;
      return field.required && value.length === 0 ? 'needs at least one choice' : null;
    }
    default:
      if (typeof value !== 'string') return 'must be text';
      return field.maxLength !== undefined && value.length > field.maxLength
        ? `must be at most ${field.maxLength} characters`
        : null;
  }
}
