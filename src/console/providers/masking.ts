/** What a secret looks like when shown (Dify shows masked values the same way). */
export const MASK = '******';

/**
 * A stored server URL as the console shows it: the scheme and host only, so an admin can tell
 * providers apart, while the path (often a secret code or a key), query and credentials stay hidden.
 */
export function maskUrl(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}/${MASK}`;
  } catch {
    return MASK;
  }
}

/** Header names stay readable; every value is masked. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, MASK]));
}

/**
 * Headers sent back by an edit form that showed masked values: a value still equal to the mask
 * keeps the stored value of that header (matched by name, case-insensitively); other values are new.
 */
export function unmaskHeaders(
  edited: Record<string, string>,
  stored: Record<string, string>,
): Record<string, string> {
  const storedByName = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.fromEntries(
    Object.entries(edited).map(([name, value]) => [
      name,
      value === MASK ? (storedByName.get(name.toLowerCase()) ?? value) : value,
    ]),
  );
}
