import { z } from 'zod';
import type { HostApp, InputVariable } from '../types/index.js';
import { codePointLength } from '../util/code-points.js';
import { isJsonObject } from '../util/plain-object.js';
import { takeConversationId } from './conversation.js';
import { exceedsDepth, MAX_ARGUMENT_DEPTH } from './depth.js';
import { compileFileCheck, DEFAULT_FILE_INPUT_LIMITS, type FileInputLimits } from './file-input.js';
import {
  CONVERSATION_ID,
  defaultOf,
  exposedInputs,
  jsonSchemaOf,
  keepsConversations,
  maxLengthOf,
  optionsOf,
  takesQuery,
} from './input-form.js';
import { traitsOf } from './modes.js';
import { stripNul } from './nul.js';

/** What a run receives once the arguments passed. */
export interface RunInputs {
  inputs: Record<string, unknown>;
  query?: string;
  /** Apps that keep conversations: the `conversation_id` argument, when one was given. */
  conversationId?: string;
}

export type ArgumentCheck = { ok: true; value: RunInputs } | { ok: false; problems: string[] };

type Checked = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** What a field's check returns for a value that fails, once it has told its problems. */
const INVALID: unique symbol = Symbol('invalid');

interface Field {
  name: string;
  required: boolean;
  /** Whether `""` counts as a missing value for an optional field (it does for non-text types). */
  emptyIsMissing: boolean;
  defaultValue: unknown;
  /**
   * The value to run with; or `INVALID`, once every problem with it (each naming the field) has
   * been added to `problems`.
   */
  check(value: unknown, problems: string[]): unknown;
}

/**
 * Compiles the app's form into one checker, once per app (docs/http-contract.md, "The tool"):
 * required values, types, `enum`, `maxLength`, the two unambiguous coercions, defaults, extra
 * arguments dropped, NUL stripped. Every problem is reported at once, in words a language model can
 * act on.
 *
 * Leniencies beyond the input schema, on purpose: the two coercions, and `null` (or `""` for a
 * non-text type) for an optional value, which counts as "not given" and takes the default.
 */
export function compileArgumentChecker(
  app: HostApp,
  limits: FileInputLimits = DEFAULT_FILE_INPUT_LIMITS,
): (args: Record<string, unknown>) => ArgumentCheck {
  const fields = exposedInputs(app).map((input) => toField(input, limits));
  const conversations = keepsConversations(app);
  if (conversations) fields.unshift(textField(CONVERSATION_ID, false));
  if (takesQuery(app)) fields.unshift(textField('query', true));
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
        else if (field.defaultValue !== undefined) setValue(values, field.name, field.defaultValue);
        continue;
      }
      const value = field.check(raw, problems);
      if (value !== INVALID) setValue(values, field.name, value);
    }
    if (problems.length > 0) return { ok: false, problems };
    const value = toRunInputs(mode, values);
    return { ok: true, value: conversations ? takeConversationId(value) : value };
  };
}

/**
 * A variable may be named like an Object.prototype member (`__proto__`, whose setter would change
 * the object's prototype): such a name is defined as a plain key; any other is assigned, which
 * costs less and gives the same property.
 */
function setValue(values: Record<string, unknown>, name: string, value: unknown): void {
  if (!Object.hasOwn(Object.prototype, name)) values[name] = value;
  else Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
}

function toRunInputs(mode: HostApp['mode'], values: Record<string, unknown>): RunInputs {
  const { query: takes } = traitsOf(mode);
  if (takes === 'none') return { inputs: values };
  if (takes === 'empty') return { inputs: values, query: '' };
  const { query, ...inputs } = values;
  return { inputs, query: query as string };
}

function toField(input: InputVariable, limits: FileInputLimits): Field {
  const name = input.variable;
  const required = input.required === true;
  const defaultValue = defaultOf(input);
  switch (input.type) {
    case 'number':
      return { name, required, emptyIsMissing: true, defaultValue, check: fromZod(numberSchema(name)) };
    case 'checkbox':
      return { name, required, emptyIsMissing: true, defaultValue, check: fromZod(booleanSchema(name)) };
    case 'json_object':
      return { name, required, emptyIsMissing: true, defaultValue, check: told(objectCheck(name, input)) };
    case 'file':
    case 'file-list':
      return {
        name,
        required,
        emptyIsMissing: true,
        defaultValue,
        check: told(compileFileCheck(input, limits)),
      };
    case 'select':
      return { ...textField(name, required, undefined, optionsOf(input)), defaultValue };
    default:
      return { ...textField(name, required, maxLengthOf(input)), defaultValue };
  }
}

/** A schema whose every message is written for the field, so the messages are the problems. */
function fromZod(schema: z.ZodType): Field['check'] {
  return (value, problems) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) problems.push(issue.message);
    return INVALID;
  };
}

/** A check that answers its problems, as a field's check that tells them. */
function told(check: (value: unknown) => Checked): Field['check'] {
  return (value, problems) => {
    const checked = check(value);
    if (checked.ok) return checked.value;
    problems.push(...checked.problems);
    return INVALID;
  };
}

/**
 * A string, NUL stripped, then no longer than `maxLength` and one of `options` when they are given
 * (both problems told when both fail). Checked by hand rather than by a schema: nearly every
 * argument is one, and this runs on every call.
 */
function textField(name: string, required: boolean, maxLength?: number, options: string[] = []): Field {
  const notText = `${name} must be a string`;
  const tooLong = `${name} must be at most ${maxLength} characters`;
  const allowed = options.length > 0 ? new Set(options) : undefined;
  const notAllowed = `${name} must be one of ${options.join(', ')}`;
  const check: Field['check'] = (value, problems) => {
    if (typeof value !== 'string') {
      problems.push(notText);
      return INVALID;
    }
    const text = stripNul(value);
    let valid = true;
    if (maxLength !== undefined && !(codePointLength(text) <= maxLength)) {
      problems.push(tooLong);
      valid = false;
    }
    if (allowed !== undefined && !allowed.has(text)) {
      problems.push(notAllowed);
      valid = false;
    }
    return valid ? text : INVALID;
  };
  return { name, required, emptyIsMissing: false, defaultValue: undefined, check };
}

/** Plain decimal notation only: "0x10", "Infinity" or "1_000" are not unambiguous numbers. */
const NUMERIC = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A numeric string is an unambiguous number; anything else stays as it is and fails. */
function numberSchema(name: string): z.ZodType {
  return z.preprocess(
    (value) => (typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value),
    z.number({ error: `${name} must be a number` }),
  );
}

function booleanSchema(name: string): z.ZodType {
  return z.preprocess(
    (value) => (value === 'true' ? true : value === 'false' ? false : value),
    z.boolean({ error: `${name} must be true or false` }),
  );
}

/**
 * A JSON object, and when the form gives a `json_schema`, one that follows it. Problems inside the
 * object name the path to the bad value (`config.retries: ...`).
 */
function objectCheck(name: string, input: InputVariable): (value: unknown) => Checked {
  const jsonSchema = jsonSchemaOf(input);
  const contents = jsonSchema ? fromJsonSchema(jsonSchema) : null;
  return (value) => {
    if (!isJsonObject(value)) {
      return { ok: false, problems: [`${name} must be a JSON object`] };
    }
    // Checked first: everything below walks the value recursively.
    if (exceedsDepth(value, MAX_ARGUMENT_DEPTH)) {
      return { ok: false, problems: [`${name} is nested more than ${MAX_ARGUMENT_DEPTH} levels deep`] };
    }
    if (!contents) return { ok: true, value: stripNulDeep(value) };
    const parsed = contents.safeParse(value, { error: missingKey });
    if (parsed.success) return { ok: true, value: stripNulDeep(value) };
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => {
        const path = [name, ...issue.path].join('.');
        return issue.message === MISSING ? `${path} is required` : `${path}: ${issue.message}`;
      }),
    };
  };
}

/** Marks a required key that is absent, which zod would word as "expected string, received undefined". */
const MISSING = '\u0000missing';
const missingKey = (issue: { code?: string; input?: unknown }) =>
  issue.code === 'invalid_type' && issue.input === undefined ? MISSING : undefined;

/** The app's own `json_schema` checks the object's contents; a schema zod cannot read only checks "is an object". */
function fromJsonSchema(jsonSchema: Record<string, unknown>): z.ZodType | null {
  try {
    return z.fromJSONSchema({ type: 'object', ...jsonSchema } as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return null;
  }
}

/** NUL characters are stripped from every string, nested ones included; the depth is bounded first. */
function stripNulDeep(value: unknown): unknown {
  if (typeof value === 'string') return stripNul(value);
  if (Array.isArray(value)) return value.map(stripNulDeep);
  if (typeof value === 'object' && value !== null) {
    // fromEntries defines keys as data, so a `__proto__` key stays a key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stripNulDeep(item)]));
  }
  return value;
}
