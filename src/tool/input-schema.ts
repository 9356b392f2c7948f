import type { HostApp, InputVariable } from '../types/index.js';
import { CONVERSATION_ID_PROPERTY } from './conversation.js';
import { fileHint, fileKeywords } from './file-input.js';
import {
  CONVERSATION_ID,
  defaultOf,
  exposedInputs,
  jsonSchemaOf,
  keepsConversations,
  maxLengthOf,
  optionsOf,
  QUERY_DESCRIPTION,
  takesQuery,
} from './input-form.js';

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  [keyword: string]: unknown;
}

/**
 * The tool's `inputSchema` from the app's input form (docs/http-contract.md, "The tool"); valid
 * JSON Schema 2020-12.
 */
export function buildInputSchema(app: HostApp, parameters: Record<string, string>): JsonSchemaObject {
  const schema: JsonSchemaObject = { type: 'object', properties: {}, required: [] };
  if (takesQuery(app)) {
    schema.properties.query = { type: 'string', description: QUERY_DESCRIPTION };
    schema.required.push('query');
  }
  if (keepsConversations(app)) schema.properties[CONVERSATION_ID] = { ...CONVERSATION_ID_PROPERTY };
  for (const input of exposedInputs(app)) {
    // defineProperty: a variable may be named like an Object.prototype member (`__proto__`).
    Object.defineProperty(schema.properties, input.variable, {
      value: propertySchema(input, parameters),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (input.required === true) schema.required.push(input.variable);
  }
  return schema;
}

function propertySchema(input: InputVariable, parameters: Record<string, string>): Record<string, unknown> {
  const property: Record<string, unknown> = { ...typeKeywords(input) };
  property.description = describe(input, parameters);
  const fallback = defaultOf(input);
  if (fallback !== undefined) property.default = fallback;
  return property;
}

function typeKeywords(input: InputVariable): Record<string, unknown> {
  switch (input.type) {
    case 'text-input':
    case 'paragraph': {
      const maxLength = maxLengthOf(input);
      return maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength };
    }
    case 'select': {
      // An empty `enum` would accept nothing; without options the field is free text.
      const options = optionsOf(input);
      return options.length > 0 ? { type: 'string', enum: options } : { type: 'string' };
    }
    case 'number':
      return { type: 'number' };
    case 'checkbox':
      return { type: 'boolean' };
    case 'file':
    case 'file-list':
      return fileKeywords(input);
    default:
      return jsonObjectKeywords(jsonSchemaOf(input));
  }
}

function jsonObjectKeywords(source: Record<string, unknown> | undefined): Record<string, unknown> {
  const keywords: Record<string, unknown> = { type: 'object' };
  if (!source) return keywords;
  for (const key of ['properties', 'required', 'additionalProperties'] as const) {
    if (source[key] !== undefined) keywords[key] = source[key];
  }
  return keywords;
}

/** The server's own wording first, then the app's; stale `parameters` keys never match. */
function describe(input: InputVariable, parameters: Record<string, string>): string {
  const fromServer = Object.hasOwn(parameters, input.variable) ? parameters[input.variable] : undefined;
  const own = nonEmpty(fromServer) ?? nonEmpty(input.description) ?? nonEmpty(input.label) ?? '';
  // A model must know what files to send.
  if (input.type !== 'file' && input.type !== 'file-list') return own;
  return own === '' ? fileHint(input) : `${own}. ${fileHint(input)}`;
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
