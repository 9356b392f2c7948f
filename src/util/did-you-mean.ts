import type { z } from 'zod';

/**
 * "Did you mean" for an unknown option: the known name closest to it, ignoring case, when it is
 * close enough to be a slip (a few edits, a third of the name at most for long names) or when one
 * contains the other (`timeout` for `callTimeoutMs`). `undefined` when nothing is close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const lower = candidate.toLowerCase();
    const contained = wanted.length >= 4 && (lower.includes(wanted) || wanted.includes(lower));
    const distance = contained ? 0 : editDistance(wanted, lower);
    if ((contained || distance <= limit) && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The option names an object schema accepts at `path` (through defaults, optionals and arrays),
 * for a hint on an unknown key found there; empty when the path leads to no object.
 */
export function optionNamesAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const segment of [...path, undefined]) {
    // Unwrap what wraps an object: default, optional, nullable, pipe (a transform's input).
    for (let depth = 0; depth < 10 && current !== undefined; depth++) {
      const def = (current as { def?: Record<string, unknown> }).def;
      if (!def) break;
      const next = def.innerType ?? def.in;
      if (next === undefined) break;
      current = next;
    }
    if (segment === undefined) break;
    const def = (current as { def?: { element?: unknown } } | undefined)?.def;
    const shape = (current as { shape?: Record<string, unknown> } | undefined)?.shape;
    current = typeof segment === 'number' ? def?.element : shape?.[String(segment)];
  }
  const shape = (current as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}
