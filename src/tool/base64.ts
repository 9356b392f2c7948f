/** Standard base64 (RFC 4648 §4), padding optional; no whitespace, no URL-safe alphabet. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `text` is base64 that every MCP client can decode (`atob` reads it). */
export function isBase64(text: string): boolean {
  if (!BASE64.test(text)) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const length = text.length - padding;
  // A lone character after full groups encodes no byte; padding only ever completes a group.
  return length % 4 !== 1 && (padding === 0 || text.length % 4 === 0);
}

/** How many bytes base64 text decodes to, without decoding it. */
export function base64ByteLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.floor(((text.length - padding) * 3) / 4);
}

export interface DataUrl {
  /** The media type without parameters, lower-cased; `undefined` when the URL gives none. */
  mediaType: string | undefined;
  /** The base64 payload. */
  data: string;
}

const DATA_URL_HEAD = /^data:([^,]*),/i;
const DATA_SCHEME = /^data:/i;

/** Whether a URL is a `data:` URL (schemes are case-insensitive, RFC 3986 §3.1). */
export function hasDataScheme(url: string): boolean {
  return DATA_SCHEME.test(url);
}

/**
 * A `data:` URL (RFC 2397) whose payload is base64 (`;base64`), or `null` for any other text.
 * Only base64 payloads are files here: a percent-encoded one would have to be decoded and re-encoded.
 */
export function parseDataUrl(url: string): DataUrl | null {
  const head = DATA_URL_HEAD.exec(url.slice(0, 512));
  if (!head) return null;
  const parameters = (head[1] as string).split(';').map((part) => part.trim());
  if (parameters.at(-1)?.toLowerCase() !== 'base64') return null;
  const data = url.slice((head[0] as string).length);
  if (!isBase64(data)) return null;
  const first = parameters.length > 1 ? parameters[0] : '';
  const mediaType = first ? first.toLowerCase() : undefined;
  return { mediaType, data };
}
