import { z } from 'zod';
import { ANNOTATION_HINTS } from '../annotations.js';

const hint = z.boolean({ error: 'must be true or false' }).optional();

/**
 * The `annotations` field of the console's POST and PUT bodies: the tool's hints, booleans only.
 * Unlike the body's other unknown fields, an unknown key here is refused, naming it: a misspelt
 * hint would otherwise be dropped without a word and the tool would carry less than the admin meant.
 */
export const AnnotationsField = z
  .object(
    Object.fromEntries(ANNOTATION_HINTS.map((name) => [name, hint])) as Record<
      (typeof ANNOTATION_HINTS)[number],
      typeof hint
    >,
    { error: 'must be an object of hints (true or false)' },
  )
  .catchall(z.never({ error: `is not a known hint; the hints are ${ANNOTATION_HINTS.join(', ')}` }))
  .nullish();
