import { ConfigurationError } from '../errors/package-errors.js';

/**
 * Loads an optional peer dependency on first use, once: only hosts that call remote servers
 * install the client SDKs, and a dynamic `import()` keeps the rest of the package (the MCP
 * endpoint, the console, the stores) free of them, in the ES module and CommonJS builds alike.
 * When the package is missing, the load fails with a `ConfigurationError` that says what to
 * install; a failed load is tried again on the next use.
 */
export function lazyPeer<T>(name: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw isMissing(error, name) ? missingPeer(name) : error;
    });
    return loading;
  };
}

/** Whether `error` is the `ConfigurationError` of `lazyPeer` for a missing `name`. */
export function isMissingPeer(error: unknown, name: string): boolean {
  return (
    error instanceof ConfigurationError &&
    error.code === 'missing_peer_dependency' &&
    error.message.includes(` ${name}:`)
  );
}

function missingPeer(name: string): ConfigurationError {
  return new ConfigurationError(
    'missing_peer_dependency',
    `connectMcpServer needs the optional peer dependency ${name}: npm install ${name}`,
  );
}

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(name)
  );
}
