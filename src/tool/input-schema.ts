import type { HostApp, InputVariable } from '../types.js';
import { exposedInputs, QUERY_DESCRIPTION, takesQuery } from './input-form.js';

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  [keyword: string]: unknown;
}

/** The tool's `inputSchema` from the app's input form (SPEC §4.2); valid JSON Schema 2020-12. */
export function buildInputSchema(app: HostApp, parameters: Record<string, string>): JsonSchemaObject {
  const schema: JsonSchemaObject = { type: 'object', properties: {}, required: [] };
  if (takesQuery(app)) {
    schema.properties.query = { type: 'string', description: QUERY_DESCRIPTION };
    schema.required.push('query');
  }
  for (const input of exposedInputs(app)) {
    schema.properties[input.variable] = propertySchema(input, parameters);
    if (input.required && !schema.required.includes(input.variable)) schema.required.push(input.variable);
  }
  return schema;
}

function propertySchema(input: InputVariable, parameters: Record<string, string>): Record<string, unknown> {
  const property: Record<string, unknown> = { ...typeKeywords(input) };
  property.description = describe(input, parameters);
  if (input.default !== undefined) property.default = input.default;
  return property;
}

function typeKeywords(input: InputVariable): Record<string, unknown> {
  switch (input.type) {
    case 'text-input':
    case 'paragraph':
      return typeof input.max_length === 'number' && input.max_length > 0
        ? { type: 'string', maxLength: input.max_length }
        : { type: 'string' };
    case 'select':
      // An empty `enum` would accept nothing; without options the field is free text.
      return input.options?.length ? { type: 'string', enum: [...input.options] } : { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'checkbox':
      return { type: 'boolean' };
    default:
      return jsonObjectKeywords(input.json_schema);
  }
}

function jsonObjectKeywords(jsonSchema: object | undefined): Record<string, unknown> {
  const keywords: Record<string, unknown> = { type: 'object' };
  if (!jsonSchema) return keywords;
  const source = jsonSchema as Record<string, unknown>;
  for (const key of ['properties', 'required', 'additionalProperties'] as const) {
    if (source[key] !== undefined) keywords[key] = source[key];
  }
  return keywords;
}

/** The server's own wording first, then the app's (SPEC §4.2); stale `parameters` keys never match. */
function describe(input: InputVariable, parameters: Record<string, string>): string {
  const fromServer = Object.hasOwn(parameters, input.variable) ? parameters[input.variable] : undefined;
  return fromServer || input.description || input.label || '';
}
