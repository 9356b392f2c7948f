import { z } from 'zod';
import { codePointLength } from '../util/code-points.js';
import { issuesOf } from '../util/zod-issues.js';
import { AnnotationsField } from './annotations.js';
import { ConsoleError, type FieldErrors } from './errors.js';

/** Dify's limit on a server's description; counted in characters (code points), not UTF-16 units. */
export const MAX_DESCRIPTION_LENGTH = 255;

/** A field's message: "is required" when it is absent, `message` when it has the wrong type. */
export const requiredOr =
  (message: string) =>
  (issue: { input: unknown }): string =>
    issue.input === undefined ? 'is required' : message;

/** A description field: a string of at most `MAX_DESCRIPTION_LENGTH` characters, or null/absent. */
export const description = z
  .string({ error: 'must be a string' })
  .refine(
    (text) => codePointLength(text) <= MAX_DESCRIPTION_LENGTH,
    `must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
  )
  .nullish();

/**
 * Per-variable descriptions shown to MCP clients. Each key must be a variable of the app's form
 * (`checkParameterKeys`); one the form no longer has, already on the server, is kept and ignored.
 */
const parameters = z.record(z.string(), z.string({ error: 'must be a string' }), {
  error: requiredOr('must be an object of strings'),
});

/**
 * Who may call the server: `code` (whoever has its URL), `oauth` (a signed-in user as well) or
 * `key` (a caller key as well, docs/keys.md); absent or null keeps it.
 */
const authMode = z.enum(['code', 'oauth', 'key'], { error: 'must be code, oauth or key' }).nullish();

/** Whether the tool runs as a task (docs/tasks.md); absent or null keeps it (`optional` on publish). */
const taskSupport = z
  .enum(['forbidden', 'optional', 'required'], { error: 'must be forbidden, optional or required' })
  .nullish();

// Unknown body fields are dropped, not refused: Dify's console ignores them too, and its UI sends extras.
const body = <T extends z.ZodRawShape>(shape: T) =>
  z.object(shape, { error: 'the request body must be a JSON object' });

/** `POST /apps/:appId/server`: publish. An absent, null or empty description means the app's; absent or null annotations, none. */
export const PublishBodySchema = body({
  description,
  parameters,
  annotations: AnnotationsField,
  auth_mode: authMode,
  task_support: taskSupport,
});

/**
 * `PUT /apps/:appId/server`: edit. `description` null/absent keeps it, `""` resets it; `status` and
 * `annotations` absent/null keep them; an `annotations` object replaces every hint (`{}` clears them).
 */
export const UpdateBodySchema = body({
  id: z.string({ error: requiredOr('must be a string') }).min(1, 'must not be empty'),
  description,
  parameters,
  annotations: AnnotationsField,
  status: z.enum(['active', 'inactive'], { error: 'must be active or inactive' }).nullish(),
  auth_mode: authMode,
  task_support: taskSupport,
});

/** Validates a request body; failure is a 400 whose `fields` name every bad field at once. */
export function validateBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  // No body at all is an empty object, so the reply names the required fields.
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const fields: FieldErrors = {};
  const problems: string[] = [];
  for (const { path, message } of issuesOf(parsed.error)) {
    if (!path) {
      problems.push(message);
      continue;
    }
    if (path in fields) continue;
    fields[path] = message;
    problems.push(`${path} ${message}`);
  }
  const message = `Invalid request body: ${problems.join('; ')}`;
  throw new ConsoleError('invalid_request', message, Object.keys(fields).length > 0 ? fields : undefined);
}

/**
 * `parameters` keys must name variables of the app's form: anything else would be stored and never
 * shown, a typo the admin would not hear of. Keys the server already has are let through, so that a
 * console that sends back what it read can still save after a variable left the app's form.
 * Failure is a 400 naming each key, and the app's variables.
 */
export function checkParameterKeys(
  parameters: Record<string, string>,
  variables: ReadonlySet<string>,
  stored: Record<string, string> = {},
): void {
  const unknown = Object.keys(parameters).filter((key) => !variables.has(key) && !Object.hasOwn(stored, key));
  if (unknown.length === 0) return;
  const fields: FieldErrors = {};
  for (const key of unknown) fields[`parameters.${key}`] = 'is not an input variable of the app';
  const known = variables.size === 0 ? 'the app has none' : `the app's are ${[...variables].join(', ')}`;
  const message = `Invalid request body: ${Object.keys(fields)
    .map((field) => `${field} is not an input variable of the app`)
    .join('; ')} (${known})`;
  throw new ConsoleError('invalid_request', message, fields);
}
