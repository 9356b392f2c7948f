import type { HostApp, InputVariable, InputVariableType } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import { offeredOverMcp } from './file-input.js';
import { traitsOf } from './modes.js';

const FORM_TYPES = new Set<string>([
  'text-input',
  'paragraph',
  'select',
  'number',
  'checkbox',
  'json_object',
  'file',
  'file-list',
  'external_data_tool',
]);

/** Inputs a client cannot supply as JSON are not part of the tool. */
const HIDDEN_TYPES = new Set<InputVariableType>(['external_data_tool']);

/** Files are offered only when they may come by URL (README, "Files in and out"). */
const isHidden = (input: InputVariable): boolean =>
  HIDDEN_TYPES.has(input.type) ||
  ((input.type === 'file' || input.type === 'file-list') && !offeredOverMcp(input));

/**
 * The app's form in the flat shape, with only the inputs a tool exposes. Accepts Dify's flat
 * entries (`{type, variable, ...}`) and the older nested ones (`{'text-input': {variable, ...}}`);
 * entries of an unknown type are left out, as a client could not know how to fill them. A variable
 * named twice keeps its first entry, and in chat modes the implicit `query`, and `conversation_id`
 * for apps that keep conversations, win over a form variable of that name, so the schema and the
 * checker always describe the same fields.
 */
export function exposedInputs(app: HostApp): InputVariable[] {
  const inputs: InputVariable[] = [];
  const seen = new Set<string>(takesQuery(app) ? ['query'] : []);
  if (keepsConversations(app)) seen.add(CONVERSATION_ID);
  for (const entry of app.inputForm ?? []) {
    const variable = flatten(entry);
    if (!variable || isHidden(variable) || seen.has(variable.variable)) continue;
    seen.add(variable.variable);
    inputs.push(variable);
  }
  return inputs;
}

/**
 * The names of every variable in the app's form, in either shape and of any type, exposed to
 * clients or not: the keys a server's `parameters` may describe.
 */
export function formVariables(app: HostApp): Set<string> {
  const names = new Set<string>();
  for (const entry of app.inputForm ?? []) {
    if (typeof entry !== 'object' || entry === null) continue;
    const record = entry as Record<string, unknown>;
    if (typeof record.variable === 'string') {
      names.add(record.variable);
      continue;
    }
    for (const body of Object.values(record)) {
      const variable = (body as { variable?: unknown } | null)?.variable;
      if (typeof variable === 'string') names.add(variable);
    }
  }
  return names;
}

function flatten(entry: unknown): InputVariable | null {
  if (typeof entry !== 'object' || entry === null) return null;
  const record = entry as Record<string, unknown>;
  if (typeof record.type === 'string' && typeof record.variable === 'string') {
    return FORM_TYPES.has(record.type) ? (record as unknown as InputVariable) : null;
  }
  const [type] = Object.keys(record);
  const body = type === undefined ? undefined : record[type];
  if (type && FORM_TYPES.has(type) && typeof body === 'object' && body !== null) {
    const variable = body as Omit<InputVariable, 'type'>;
    if (typeof variable.variable === 'string') return { ...variable, type: type as InputVariableType };
  }
  return null;
}

/** Chat-like modes take the user's message as a `query` argument. */
export const takesQuery = (app: HostApp): boolean => traitsOf(app.mode).query === 'argument';

export const QUERY_DESCRIPTION = 'User Input/Question content';

/** A chat app that keeps conversations takes and returns this argument (README, "Conversations"). */
export const CONVERSATION_ID = 'conversation_id';

/** `HostApp.conversations` applies to the chat modes only: a workflow or a completion has no conversation. */
export const keepsConversations = (app: HostApp): boolean => app.conversations === true && takesQuery(app);

/** A text's `max_length`, when it is a usable limit (JSON Schema's `maxLength` is a non-negative integer). */
export function maxLengthOf(input: Pick<InputVariable, 'max_length'>): number | undefined {
  const limit = input.max_length;
  return typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

/** A select's distinct string options; empty means free text (an empty `enum` would accept nothing). */
export function optionsOf(input: InputVariable): string[] {
  if (!Array.isArray(input.options)) return [];
  return [...new Set(input.options.filter((option): option is string => typeof option === 'string'))];
}

/** A `null` default is how forms say "no default"; only other values are copied and used. */
export function defaultOf(input: Pick<InputVariable, 'default'>): unknown {
  return input.default === null ? undefined : input.default;
}

/**
 * A `json_object`'s schema as an object. Form editors often store it as JSON text, so a string
 * holding a JSON object is read too; anything else means "any object".
 */
export function jsonSchemaOf(input: InputVariable): Record<string, unknown> | undefined {
  let schema: unknown = input.json_schema;
  if (typeof schema === 'string') {
    try {
      schema = JSON.parse(schema);
    } catch {
      return undefined;
    }
  }
  return isJsonObject(schema) ? schema : undefined;
}
