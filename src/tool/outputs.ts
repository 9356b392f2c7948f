import { z } from 'zod';
import type { DeclaredOutput, HostApp } from '../types.js';
import type { JsonSchemaObject } from './input-schema.js';

const ANSWER_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
};

/** The tool's `outputSchema`: precise when a workflow declares its outputs. */
export function buildOutputSchema(app: HostApp): Record<string, unknown> {
  if (app.mode !== 'workflow') return ANSWER_SCHEMA;
  if (!app.outputs?.length) return { type: 'object' };
  const schema: JsonSchemaObject = { type: 'object', properties: {}, required: [] };
  for (const output of declaredOutputs(app)) {
    schema.properties[output.variable] = output.description
      ? { type: output.type, description: output.description }
      : { type: output.type };
    schema.required.push(output.variable);
  }
  return schema;
}

/** Each declared output once, the first declaration winning, so `required` has no duplicates. */
function declaredOutputs(app: HostApp): DeclaredOutput[] {
  const seen = new Set<string>();
  return (app.outputs ?? []).filter((output) => !seen.has(output.variable) && seen.add(output.variable));
}

const OUTPUT_TYPES: Record<DeclaredOutput['type'], z.ZodType> = {
  string: z.string(),
  number: z.number(),
  boolean: z.boolean(),
  array: z.array(z.unknown()),
  object: z.record(z.string(), z.unknown()),
};

/**
 * Checks a workflow's outputs against what it declared; `null` when there is nothing to check.
 * Returns the problems found, empty when the outputs match.
 */
export function compileOutputCheck(app: HostApp): ((outputs: Record<string, unknown>) => string[]) | null {
  if (app.mode !== 'workflow' || !app.outputs?.length) return null;
  const declared = declaredOutputs(app);
  return (outputs) => {
    const problems: string[] = [];
    for (const { variable, type } of declared) {
      if (!Object.hasOwn(outputs, variable)) problems.push(`${variable} is missing`);
      else if (!OUTPUT_TYPES[type].safeParse(outputs[variable]).success) {
        problems.push(`${variable} must be ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type}`);
      }
    }
    return problems;
  };
}
