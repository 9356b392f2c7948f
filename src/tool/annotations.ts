import type { ToolAnnotations } from '../types/index.js';

/** The hints a server may set, in the order they are stored and shown (MCP 2025-03-26 `ToolAnnotations`). */
export const ANNOTATION_HINTS = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;

/**
 * The hints of `value` that are booleans, in a fixed order; `undefined` when there are none, so
 * "no hints" has one spelling everywhere (an absent field, never `{}`). Anything else a record or
 * a stored row may hold is left out rather than shown to clients.
 */
export function pickAnnotations(value: unknown): ToolAnnotations | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const source = value as Record<string, unknown>;
  const picked: ToolAnnotations = {};
  let any = false;
  for (const hint of ANNOTATION_HINTS) {
    const flag = source[hint];
    if (typeof flag === 'boolean') {
      picked[hint] = flag;
      any = true;
    }
  }
  return any ? picked : undefined;
}
