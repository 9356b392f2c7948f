/**
 * How deep a `json_object` argument may be nested: objects and arrays each count as a level, the
 * argument itself as the first (`{}` is 1 level, `{"a": []}` 2). Real tool arguments stay far
 * below it; a deeper value is an argument problem (docs/http-contract.md, "The tool"; README
 * "Security"), so the checks that walk a value (NUL stripping, the app's `json_schema`) never go
 * deeper than this.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** Whether `value` is nested more than `maxDepth` levels deep; iterative, so any depth is safe to measure. */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}
