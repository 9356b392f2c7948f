// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is stripped.
const NUL = /\u0000/g;

/**
 * NUL characters are stripped from every string argument (docs/http-contract.md, "The tool"). A
 * text without one, nearly every text, is returned as it is, without a pass of the pattern.
 */
export const stripNul = (text: string): string => (text.includes('\u0000') ? text.replace(NUL, '') : text);
