/**
 * How many bytes a `tools/call` result takes once serialized, measured without serializing it when
 * that can be helped (docs/http-contract.md, "The tool", Results): a walk of the result gives a lower and an
 * upper bound from its strings' lengths, which settle almost every result (a small one is far
 * under the limit, a huge one far over); only a result between the two is serialized to be measured.
 */

/** `maxResultBytes`'s default: 16 MiB of serialized result. */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

/**
 * The largest `maxResultBytes` may be: a result it lets through is serialized again when it is
 * written (and kept, for a task), and JavaScript strings end at about 512 Mi UTF-16 code units.
 */
export const MAX_MAX_RESULT_BYTES = 256 * 1024 * 1024;

/** What a result's size is, as far as the limit goes. */
export type ResultSize =
  | { fits: true }
  | { fits: false; bytes?: number }
  /** It cannot be serialized at all (a cycle, a `BigInt`, a `toJSON` that throws). */
  | { fits: false; unserializable: unknown };

/** Nested deeper than this, a value is measured by serializing it (a cycle then fails there, not here). */
const MAX_WALK_DEPTH = 64;

/** Bounds of a serialized JSON text's size in UTF-8 bytes; `null` from the walk: measure it exactly. */
interface Bounds {
  low: number;
  high: number;
}

/**
 * Whether `value` serializes within `limit` bytes of UTF-8. Each UTF-16 code unit of a string takes
 * 1 to 6 bytes (`\u001f`), so a string of n units takes n + 2 to 6n + 2 with its quotes.
 */
export function measureResult(value: unknown, limit: number): ResultSize {
  const bounds: Bounds = { low: 0, high: 0 };
  const known = walk(value, bounds, 0, limit);
  if (known && bounds.high <= limit) return { fits: true };
  if (bounds.low > limit) return { fits: false };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    // A string past what JavaScript holds is too large, whatever the limit.
    if (error instanceof RangeError && /string length/i.test(error.message)) return { fits: false };
    return { fits: false, unserializable: error };
  }
  const bytes = json === undefined ? 0 : Buffer.byteLength(json);
  return bytes <= limit ? { fits: true } : { fits: false, bytes };
}

/**
 * Adds `value`'s bounds; `false` when part of it can only be measured by serializing it (an object
 * with `toJSON`, a class instance, a deep nest). Stops early once the low bound passes `limit`.
 */
function walk(value: unknown, bounds: Bounds, depth: number, limit: number): boolean {
  switch (typeof value) {
    case 'string':
      bounds.low += value.length + 2;
      bounds.high += 6 * value.length + 2;
      return true;
    case 'number':
      // From `0` to `-1.2345678901234567e-308`; a number that is not finite is `null`.
      bounds.low += 1;
      bounds.high += 24;
      return true;
    case 'boolean':
      bounds.low += 4;
      bounds.high += 5;
      return true;
    case 'undefined':
      // Left out of an object, `null` in an array: at most that.
      bounds.high += 4;
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) {
    bounds.low += 4;
    bounds.high += 4;
    return true;
  }
  if (depth >= MAX_WALK_DEPTH) return false;
  if (Array.isArray(value)) {
    bounds.low += 2;
    bounds.high += 2 + value.length;
    for (const item of value) {
      if (!walk(item, bounds, depth + 1, limit)) return false;
      if (bounds.low > limit) return true;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return false;
  bounds.low += 2;
  bounds.high += 2;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    // The key and its colon and comma; a value left out (undefined) still counts here, as a bound.
    bounds.high += 6 * key.length + 4;
    if (!walk((value as Record<string, unknown>)[key], bounds, depth + 1, limit)) return false;
    if (bounds.low > limit) return true;
  }
  return true;
}
