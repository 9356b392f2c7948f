/** A JSON object: an object that is neither `null` nor an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object `text` holds; `null` when it is no JSON, or JSON of another kind. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return isJsonObject(value) ? value : null;
}

/**
 * What `z.record(z.string(), …)` accepts unchanged, checked without zod on the hot path: an object
 * whose prototype is Object's or null (every JSON object), without an own `__proto__` key (the
 * schema drops that key, so such an object takes the schema's path and comes out as it would).
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !Object.hasOwn(value, '__proto__');
}

/**
 * An object as `JSON.parse` makes it, an own `__proto__` key included: `tools/call` arguments, whose
 * keys are the app's variable names, and a variable may be named `__proto__` (docs/http-contract.md, "The tool").
 */
export function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
