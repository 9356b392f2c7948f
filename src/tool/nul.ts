// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is stripped.
const NUL = /\u0000/g;

/** NUL characters are stripped from every string argument (docs/http-contract.md, "The tool"). */
export const stripNul = (text: string): string => text.replace(NUL, '');
