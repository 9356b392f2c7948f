import { pickAnnotations } from '../tool/annotations.js';
import type { ServerRecord, ToolAnnotations } from '../types/index.js';

/** The `annotations` column: JSON text of the hints, or NULL when there are none. */
export function annotationsToColumn(annotations: ToolAnnotations | undefined): string | null {
  const picked = pickAnnotations(annotations);
  return picked ? JSON.stringify(picked) : null;
}

/**
 * Sets a record's `annotations` from the column (or from a record being copied), leaving the field
 * out when there are none, so records without hints look as they did before hints existed.
 */
export function withAnnotations(
  server: ServerRecord,
  annotations: string | ToolAnnotations | null | undefined,
): ServerRecord {
  const picked = pickAnnotations(typeof annotations === 'string' ? parseJson(annotations) : annotations);
  if (picked) server.annotations = picked;
  else delete server.annotations;
  return server;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A hand-edited row must not take the server down: unreadable hints are no hints.
    return undefined;
  }
}
