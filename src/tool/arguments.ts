import { z } from 'zod';
import type { HostApp, InputVariable } from '../types.js';
import { exposedInputs, takesQuery } from './input-form.js';

/** What a run receives once the arguments passed (SPEC §4.3). */
export interface RunInputs {
  inputs: Record<string, unknown>;
  query?: string;
}

export type ArgumentCheck = { ok: true; value: RunInputs } | { ok: false; problems: string[] };

interface Field {
  name: string;
  required: boolean;
  /** Whether `""` counts as a missing value for an optional field (it does for non-text types). */
  emptyIsMissing: boolean;
  defaultValue: unknown;
  schema: z.ZodType;
}

/**
 * Compiles the app's form into one checker, once per app (SPEC §4.3): required values, types,
 * `enum`, `maxLength`, the two unambiguous coercions, defaults, extra arguments dropped, NUL
 * stripped. Every problem is reported at once, in words a language model can act on.
 */
export function compileArgumentChecker(app: HostApp): (args: Record<string, unknown>) => ArgumentCheck {
  const fields = exposedInputs(app).map(toField);
  const queryField = takesQuery(app) ? textField('query', true) : null;
  if (queryField) fields.unshift(queryField);
  const mode = app.mode;

  return (args) => {
    const values: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const field of fields) {
      const raw = Object.hasOwn(args, field.name) ? args[field.name] : undefined;
      const missing =
        raw === undefined || raw === null || (raw === '' && (field.required || field.emptyIsMissing));
      if (missing) {
        if (field.required) problems.push(`${field.name} is required`);
        else if (field.defaultValue !== undefined) values[field.name] = field.defaultValue;
        continue;
      }
      const parsed = field.schema.safeParse(raw);
      if (parsed.success) values[field.name] = parsed.data;
      else problems.push(...parsed.error.issues.map((issue) => describeIssue(field.name, issue)));
    }
    if (problems.length > 0) return { ok: false, problems };
    return { ok: true, value: toRunInputs(mode, values) };
  };
}

/** Our own messages sit at the field itself; issues inside a JSON object name the path to the bad value. */
function describeIssue(name: string, issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? issue.message : `${name}.${issue.path.join('.')}: ${issue.message}`;
}

function toRunInputs(mode: HostApp['mode'], values: Record<string, unknown>): RunInputs {
  if (mode === 'workflow') return { inputs: values };
  if (mode === 'completion') return { inputs: values, query: '' };
  const { query, ...inputs } = values;
  return { inputs, query: query as string };
}

function toField(input: InputVariable): Field {
  const name = input.variable;
  const required = input.required === true;
  switch (input.type) {
    case 'number':
      return { ...base(input), schema: numberSchema(name) };
    case 'checkbox':
      return { ...base(input), schema: booleanSchema(name) };
    case 'json_object':
      return { ...base(input), schema: objectSchema(name, input.json_schema) };
    case 'select':
      return { ...textField(name, required, undefined, input.options), defaultValue: input.default };
    default:
      return { ...textField(name, required, input.max_length), defaultValue: input.default };
  }
}

function base(input: InputVariable): Omit<Field, 'schema'> {
  return {
    name: input.variable,
    required: input.required === true,
    emptyIsMissing: true,
    defaultValue: input.default,
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is stripped (SPEC §4.3).
const NUL = /\u0000/g;

function textField(name: string, required: boolean, maxLength?: number, options?: string[]): Field {
  let schema: z.ZodType<string> = z
    .string({ error: `${name} must be a string` })
    .transform((text) => text.replace(NUL, ''));
  if (typeof maxLength === 'number' && maxLength > 0) {
    // JSON Schema's maxLength counts code points, not UTF-16 units.
    schema = schema.refine((text) => codePointLength(text) <= maxLength, {
      error: `${name} must be at most ${maxLength} characters`,
    });
  }
  if (options?.length) {
    const allowed = new Set(options);
    schema = schema.refine((text) => allowed.has(text), {
      error: `${name} must be one of ${options.join(', ')}`,
    });
  }
  return { name, required, emptyIsMissing: false, defaultValue: undefined, schema };
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** A numeric string is an unambiguous number (SPEC §4.3); anything else stays as it is and fails. */
function numberSchema(name: string): z.ZodType {
  return z.preprocess(
    (value) =>
      typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))
        ? Number(value)
        : value,
    z.number({ error: `${name} must be a number` }),
  );
}

function booleanSchema(name: string): z.ZodType {
  return z.preprocess(
    (value) => (value === 'true' ? true : value === 'false' ? false : value),
    z.boolean({ error: `${name} must be true or false` }),
  );
}

function objectSchema(name: string, jsonSchema: object | undefined): z.ZodType {
  const isObject = z.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    { error: `${name} must be a JSON object` },
  );
  const inner = jsonSchema ? fromJsonSchema(jsonSchema) : null;
  return inner ? isObject.pipe(inner as z.ZodType<unknown, Record<string, unknown>>) : isObject;
}

/** The app's own `json_schema` checks the object's contents; a schema zod cannot read only checks "is an object". */
function fromJsonSchema(jsonSchema: object): z.ZodType | null {
  try {
    const schema = z.fromJSONSchema({ type: 'object', ...jsonSchema } as Parameters<
      typeof z.fromJSONSchema
    >[0]);
    return schema.transform((value) => value);
  } catch {
    return null;
  }
}
