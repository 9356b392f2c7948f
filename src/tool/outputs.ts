import { z } from 'zod';
import type { DeclaredOutput, HostApp } from '../types/index.js';
import { FILE_OUTPUT_SCHEMA, FILE_SHAPE, toResultFile } from './app-file.js';
import { CONVERSATION_ANSWER_SCHEMA } from './conversation.js';
import { keepsConversations } from './input-form.js';
import type { JsonSchemaObject } from './input-schema.js';
import { producesOutputs } from './modes.js';

const ANSWER_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
};

/** The tool's `outputSchema`: precise when a workflow declares its outputs. */
export function buildOutputSchema(app: HostApp): Record<string, unknown> {
  if (!producesOutputs(app.mode)) return keepsConversations(app) ? CONVERSATION_ANSWER_SCHEMA : ANSWER_SCHEMA;
  if (!app.outputs?.length) return { type: 'object' };
  const schema: JsonSchemaObject = { type: 'object', properties: {}, required: [] };
  for (const output of declaredOutputs(app)) {
    const keywords = outputKeywords(output.type);
    schema.properties[output.variable] = output.description
      ? { ...keywords, description: output.description }
      : keywords;
    schema.required.push(output.variable);
  }
  return schema;
}

/** A declared file is the object `structuredContent` shows for it (README, "Files in and out"). */
function outputKeywords(type: DeclaredOutput['type']): Record<string, unknown> {
  if (type === 'file') return { ...FILE_OUTPUT_SCHEMA };
  if (type === 'array[file]') return { type: 'array', items: FILE_OUTPUT_SCHEMA };
  return { type };
}

/** The declared `file` and `array[file]` outputs, whose values become content blocks. */
export function declaredFileOutputs(app: HostApp): FileOutput[] {
  if (!producesOutputs(app.mode)) return [];
  return declaredOutputs(app)
    .filter((output) => output.type === 'file' || output.type === 'array[file]')
    .map((output) => ({ variable: output.variable, list: output.type === 'array[file]' }));
}

export interface FileOutput {
  variable: string;
  /** `array[file]` */
  list: boolean;
}

/** Each declared output once, the first declaration winning, so `required` has no duplicates. */
function declaredOutputs(app: HostApp): DeclaredOutput[] {
  const seen = new Set<string>();
  return (app.outputs ?? []).filter((output) => !seen.has(output.variable) && seen.add(output.variable));
}

type PlainType = Exclude<DeclaredOutput['type'], 'file' | 'array[file]'>;

const OUTPUT_TYPES: Record<PlainType, z.ZodType> = {
  string: z.string(),
  number: z.number(),
  boolean: z.boolean(),
  array: z.array(z.unknown()),
  object: z.record(z.string(), z.unknown()),
};

/**
 * Whether `value` is of a plain declared type: what `OUTPUT_TYPES` accepts, the scalar types told
 * without a parse (a finite number only, as zod's `z.number()`), since every output is checked on
 * every call.
 */
function isOfType(type: PlainType, value: unknown): boolean {
  if (type === 'string') return typeof value === 'string';
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (type === 'boolean') return typeof value === 'boolean';
  return OUTPUT_TYPES[type].safeParse(value).success;
}

function typeProblem(variable: string, type: DeclaredOutput['type'], value: unknown): string | undefined {
  if (type === 'file') return fileProblem(variable, value);
  if (type === 'array[file]') {
    if (!Array.isArray(value)) return `${variable} must be an array of files, each ${FILE_SHAPE}`;
    return value.map((item, index) => fileProblem(`${variable}[${index}]`, item)).find(Boolean);
  }
  if (isOfType(type, value)) return undefined;
  return `${variable} must be ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type}`;
}

function fileProblem(path: string, value: unknown): string | undefined {
  const file = toResultFile(value);
  if (typeof file !== 'string') return undefined;
  return file.startsWith('must ') ? `${path} ${file}` : `${path}.${file}`;
}

/**
 * Checks a workflow's outputs against what it declared; `null` when there is nothing to check.
 * Returns the problems found, empty when the outputs match.
 */
export function compileOutputCheck(app: HostApp): ((outputs: Record<string, unknown>) => string[]) | null {
  if (!producesOutputs(app.mode) || !app.outputs?.length) return null;
  const declared = declaredOutputs(app);
  return (outputs) => {
    const problems: string[] = [];
    for (const { variable, type } of declared) {
      if (!Object.hasOwn(outputs, variable)) problems.push(`${variable} is missing`);
      else {
        const problem = typeProblem(variable, type, outputs[variable]);
        if (problem) problems.push(problem);
      }
    }
    return problems;
  };
}
