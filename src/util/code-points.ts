/** A text's length in characters (code points), as JSON Schema's `maxLength` counts it; not UTF-16 units. */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}
