/**
 * The console API, called from the page on its own origin with the host's own authentication:
 * the host's cookies go along by themselves, and a bearer token a person typed in (kept for this tab
 * only, in sessionStorage) is sent as `Authorization: Bearer …`.
 */

const TOKEN_KEY = 'express-app-mcp.console-token';

/** An error reply of the console: `{ error: { code, message, fields? } }`. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {Record<string, string>} [fields]
   */
  constructor(status, code, message, fields) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** @type {Set<() => void>} */
const signedOutListeners = new Set();

/** Called whenever the console answers 401: the person must sign in (again). @param {() => void} listener */
export const onSignedOut = (listener) => signedOutListeners.add(listener);

/**
 * One console request. `base` is a URL the path is resolved against (the console's root, or the
 * tool provider console's); a 204 resolves to `null`.
 * @param {URL} base
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function request(base, method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const bearer = token.get();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  let response;
  try {
    response = await fetch(new URL(path, base), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network', 'The console cannot be reached: check your connection and try again.');
  }
  if (response.status === 204) return null;
  const reply = await response.json().catch(() => undefined);
  if (response.ok && reply !== undefined) return reply;
  if (response.status === 401) for (const listener of signedOutListeners) listener();
  const error = reply?.error;
  if (error && typeof error.message === 'string') {
    throw new ApiError(response.status, error.code, error.message, error.fields);
  }
  throw new ApiError(response.status, 'http', `The console answered HTTP ${response.status}.`);
}

/** The console's root: the page is served there. */
export const consoleRoot = new URL('./', location.href);

/** @param {string} path */
export const get = (path) => request(consoleRoot, 'GET', path);

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
export const send = (method, path, body) => request(consoleRoot, method, path, body);
