import { isJsonObject } from '../util/plain-object.js';
import { base64ByteLength, hasDataScheme, isBase64, parseDataUrl } from './base64.js';
import { mediaTypeOfName, normalizeMediaType } from './file-types.js';

/**
 * A file of a result, checked and completed from the app's `AppFile` (README, "Files in and out"): either a link
 * (`url`) or inline base64 (`data`), never both.
 */
export interface ResultFile {
  name: string;
  /** `undefined` when neither the app nor the name tells it. */
  mimeType: string | undefined;
  /** Inline files: the decoded size; links: the app's `size`, when it gave one. */
  size: number | undefined;
  url?: string;
  data?: string;
  /** Inline files: the URL the app named the data with, if any. */
  dataUri?: string;
}

/** What a client cannot be sent: an `AppFile` without a URL or data, or with a malformed field. */
export const FILE_SHAPE = 'a file: an object with a url or base64 data';

/** The bytes a result carries inline for a file. */
export const inlineBytes = (file: ResultFile): number =>
  file.data === undefined ? 0 : base64ByteLength(file.data);

/**
 * Checks and completes one `AppFile`: a base64 `data:` URL becomes inline data; the name defaults
 * to the URL's last path segment, else `file`; the media type to the `data:` URL's, else the one
 * of the name's extension. Returns the problem as text when the value is no usable file.
 */
export function toResultFile(file: unknown): ResultFile | string {
  if (!isJsonObject(file)) return `must be ${FILE_SHAPE}`;
  for (const key of ['url', 'data', 'mimeType', 'name'] as const) {
    if (file[key] !== undefined && typeof file[key] !== 'string') return `${key} must be a string`;
  }
  const { url, mimeType, name } = file as { url?: string; mimeType?: string; name?: string };
  let data = file.data as string | undefined;
  const size = file.size;
  if (size !== undefined && !(Number.isInteger(size) && (size as number) >= 0)) {
    return 'size must be a whole number of bytes';
  }
  if (data !== undefined && !isBase64(data)) return 'data must be base64';

  const isDataUrl = url !== undefined && hasDataScheme(url);
  const dataUrl = isDataUrl ? parseDataUrl(url) : null;
  if (isDataUrl && !dataUrl) return 'url must be a base64 data: URL or another absolute URL';
  // A link is passed on as the URL parser writes it (spaces and non-ASCII escaped), so that it is
  // the `format: "uri"` of the output schema; a `data:` URL the parser reads past leading spaces or
  // inner tabs is no link, and it is not read as inline data either.
  let link: URL | undefined;
  if (url !== undefined && !dataUrl) {
    if (!URL.canParse(url)) return 'url must be an absolute URL';
    link = new URL(url);
    if (link.protocol === 'data:') return 'url must be a base64 data: URL or another absolute URL';
  }
  data ??= dataUrl?.data;
  if (data === undefined && link === undefined) return `must be ${FILE_SHAPE}`;

  const fileName = name || (link && lastSegment(link)) || 'file';
  const result: ResultFile = {
    name: fileName,
    mimeType:
      (mimeType && normalizeMediaType(mimeType)) ||
      dataUrl?.mediaType ||
      mediaTypeOfName(fileName) ||
      (link && mediaTypeOfName(link.pathname)),
    size: data === undefined ? (size as number | undefined) : base64ByteLength(data),
  };
  if (data === undefined) result.url = link?.href;
  else {
    result.data = data;
    if (link !== undefined) result.dataUri = link.href;
  }
  return result;
}

function lastSegment(url: URL): string | undefined {
  const segment = url.pathname.split('/').pop();
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A file as `structuredContent` shows it: `{url | data, name, mime_type, size}`. */
export function structuredFile(file: ResultFile, { withData = true } = {}): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  if (file.url !== undefined) shown.url = file.url;
  if (file.data !== undefined && withData) shown.data = file.data;
  shown.name = file.name;
  shown.mime_type = file.mimeType ?? 'application/octet-stream';
  if (file.size !== undefined) shown.size = file.size;
  return shown;
}

/** The `outputSchema` of a declared `file` output: what `structuredFile` writes, a link or inline data. */
export const FILE_OUTPUT_SCHEMA = Object.freeze({
  oneOf: [
    fileVariant('url', { type: 'string', format: 'uri' }),
    fileVariant('data', { type: 'string', contentEncoding: 'base64' }),
  ],
});

function fileVariant(key: 'url' | 'data', keywords: Record<string, unknown>) {
  return {
    type: 'object',
    properties: {
      [key]: keywords,
      name: { type: 'string' },
      mime_type: { type: 'string' },
      size: { type: 'integer', minimum: 0 },
    },
    required: [key, 'name', 'mime_type'],
    additionalProperties: false,
  };
}
