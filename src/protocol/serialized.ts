/**
 * Results whose JSON text never changes (a tool's `tools/list` result for one protocol version),
 * serialized once: the reply splices the text in instead of serializing the same object on every
 * request. The value must not change after it is remembered; callers freeze it.
 */
const texts = new WeakMap<object, string>();

export function rememberJson<T extends object>(value: T): T {
  texts.set(value, JSON.stringify(value));
  return value;
}

export function jsonOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}
