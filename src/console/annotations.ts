import { z } from 'zod';
import { ANNOTATION_HINTS, pickAnnotations } from '../tool/annotations.js';
import type { ToolAnnotations } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';

const hints = new Set<string>(ANNOTATION_HINTS);
const UNKNOWN_HINT = `is not a known hint; the hints are ${ANNOTATION_HINTS.join(', ')}`;

/**
 * The `annotations` field of the console's POST and PUT bodies: the tool's hints, booleans only.
 * Unlike the body's other unknown fields, an unknown key here is refused, each under its own name:
 * a misspelt hint would otherwise be dropped without a word, and the tool would carry less than the
 * admin meant. Keys are read with `Object.keys`, so even `__proto__` (which zod's object schemas
 * skip) is named.
 */
export const AnnotationsField = z
  .custom<Record<string, unknown>>(isJsonObject, { error: 'must be an object of hints (true or false)' })
  .superRefine((value, context) => {
    for (const key of Object.keys(value)) {
      if (!hints.has(key)) context.addIssue({ code: 'custom', path: [key], message: UNKNOWN_HINT });
      else if (typeof value[key] !== 'boolean') {
        context.addIssue({ code: 'custom', path: [key], message: 'must be true or false' });
      }
    }
  })
  .transform((value): ToolAnnotations => pickAnnotations(value) ?? {})
  .nullish();
