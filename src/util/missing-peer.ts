import { ConfigurationError } from '../errors/package-errors.js';

/**
 * The one error for an optional peer dependency that is not installed, whichever factory needs
 * it: a `ConfigurationError` with the code `missing_peer_dependency`, its message starting with the
 * factory's name (and naming the `option` that needs the package, if one does) and ending with what
 * to install. The import's own error is its `cause`.
 */
export function missingPeer(
  factory: string,
  name: string,
  { cause, option }: { cause?: unknown; option?: string } = {},
): ConfigurationError {
  const needs = option === undefined ? 'needs' : `the ${option} option needs`;
  return new ConfigurationError(
    'missing_peer_dependency',
    `${factory}: ${needs} the optional peer dependency ${name}, which is not installed: npm install ${name}`,
    { cause },
  );
}

/** Whether `error` is the `missingPeer` error for `name`. */
export function isMissingPeer(error: unknown, name: string): boolean {
  return (
    error instanceof ConfigurationError &&
    error.code === 'missing_peer_dependency' &&
    error.message.endsWith(`: npm install ${name}`)
  );
}

/** Whether `error` is the module loader's "not found" for the package `name` (ES module or CommonJS). */
export function isModuleNotFound(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(name)
  );
}
