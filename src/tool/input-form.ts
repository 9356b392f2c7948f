import type { HostApp, InputVariable, InputVariableType } from '../types.js';

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

/** Inputs a client cannot supply as JSON are not part of the tool (SPEC §4.2). */
const HIDDEN_TYPES = new Set<InputVariableType>(['file', 'file-list', 'external_data_tool']);

/**
 * The app's form in the flat shape, with only the inputs a tool exposes. Accepts Dify's flat
 * entries (`{type, variable, ...}`) and the older nested ones (`{'text-input': {variable, ...}}`);
 * entries of an unknown type are left out, as a client could not know how to fill them.
 */
export function exposedInputs(app: HostApp): InputVariable[] {
  const inputs: InputVariable[] = [];
  for (const entry of app.inputForm ?? []) {
    const variable = flatten(entry);
    if (variable && !HIDDEN_TYPES.has(variable.type)) inputs.push(variable);
  }
  return inputs;
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

/** Chat-like modes take the user's message as a `query` argument (SPEC §4.2). */
export const takesQuery = (app: HostApp): boolean =>
  app.mode === 'chat' || app.mode === 'advanced-chat' || app.mode === 'agent-chat';

export const QUERY_DESCRIPTION = 'User Input/Question content';
