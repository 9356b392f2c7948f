import { z } from 'zod';
import { ConfigurationError } from '../errors/package-errors.js';
import { closestName, optionNamesAt } from './did-you-mean.js';

/**
 * Parses a factory's options once, at factory time: defaults filled, an unknown or ill-typed option
 * a `ConfigurationError` that names it (with its path), the caller's object left untouched.
 * Shared by `mcpServer`, `mcpConsole`, `knexServerStore`, `migrate` and `rollback`.
 */
export function parseFactoryOptions<S extends z.ZodType>(
  schema: S,
  value: unknown,
  factory: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = optionNamesAt(schema, issue.path);
      const named = issue.keys.map((key) => {
        const suggestion = closestName(key, known);
        const hint = suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
        return `"${[...issue.path, key].join('.')}"${hint}`;
      });
      return `unknown option ${named.join(', ')}`;
    }
    return `invalid option "${issue.path.join('.') || 'options'}": ${issue.message}`;
  });
  throw new ConfigurationError('invalid_options', `${factory}: ${problems.join('; ')}`);
}

/** An option that must be a function; `message` is what a wrong value is told. */
export const functionOption = <T>(message = 'must be a function') =>
  z.custom<T>((value) => typeof value === 'function', { error: message });

/** An option that must be an object with these methods (a store); `message` is what a wrong value is told. */
export const methodsOption = <T>(methods: readonly string[], message: string) =>
  z.custom<T>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    { error: message },
  );
