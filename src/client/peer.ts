import { isModuleNotFound, missingPeer } from '../util/missing-peer.js';

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
      throw isModuleNotFound(error, name) ? missingPeer('connectMcpServer', name, { cause: error }) : error;
    });
    return loading;
  };
}
