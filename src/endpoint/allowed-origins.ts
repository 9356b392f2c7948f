import { z } from 'zod';

/** The one entry that allows every origin; it has to be written out, never implied. */
export const ANY_ORIGIN = '*';

/** `scheme://host[:port]` and nothing after it, as browsers send `Origin` (RFC 6454 §7). */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+$/i;

/**
 * One `allowedOrigins` entry, as the `Origin` value it allows (lower case; an http(s) origin
 * without its scheme's default port, as browsers leave it out), or `'*'`; `null` for anything else:
 * a bare host (`localhost:5173`), a path or a trailing slash (`http://localhost:5173/`), credentials.
 */
export function allowedOrigin(entry: string): string | null {
  if (entry === ANY_ORIGIN) return ANY_ORIGIN;
  if (!ORIGIN.test(entry)) return null;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return entry.toLowerCase();
}

/** The `allowedOrigins` option: each entry becomes the `Origin` value it allows; a bad one is named. */
export const AllowedOriginsSchema = z.array(
  z.string().transform((entry, context) => {
    const origin = allowedOrigin(entry);
    if (origin === null) {
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not an origin: write scheme://host[:port] with no path (e.g. http://localhost:5173), or '*' for any origin`,
      });
      return z.NEVER;
    }
    return origin;
  }),
);
