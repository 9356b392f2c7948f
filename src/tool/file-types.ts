import type { FileType } from '../types/index.js';

/** Dify's extensions of each file type (its `api/constants`), lower-case, without the dot. */
export const EXTENSIONS_BY_TYPE: Readonly<Record<Exclude<FileType, 'custom'>, readonly string[]>> = {
  image: ['jpg', 'jpeg', 'png', 'webp', 'gif', 'svg'],
  document: [
    'txt',
    'markdown',
    'md',
    'mdx',
    'pdf',
    'html',
    'htm',
    'xlsx',
    'xls',
    'docx',
    'csv',
    'vtt',
    'properties',
    'doc',
    'eml',
    'msg',
    'pptx',
    'ppt',
    'xml',
    'epub',
  ],
  audio: ['mp3', 'm4a', 'wav', 'amr', 'mpga'],
  video: ['mp4', 'mov', 'mpeg', 'webm'],
};

export const FILE_TYPES: readonly FileType[] = ['image', 'document', 'audio', 'video', 'custom'];

const TYPE_OF_EXTENSION = new Map<string, FileType>(
  Object.entries(EXTENSIONS_BY_TYPE).flatMap(([type, extensions]) =>
    extensions.map((extension) => [extension, type as FileType] as const),
  ),
);

/** The Dify type of an extension (`png` → image), if it is one of Dify's. */
export const typeOfExtension = (extension: string): FileType | undefined =>
  TYPE_OF_EXTENSION.get(extension.toLowerCase());

/** Document media types besides `text/*`: PDF, Office, OpenDocument, e-mail, XML, EPUB. */
const DOCUMENT_MEDIA_TYPE =
  /^(application\/(pdf|msword|rtf|xml|epub\+zip|vnd\.ms-[\w.+-]+|vnd\.openxmlformats-officedocument\.[\w.+-]+|vnd\.oasis\.opendocument\.[\w.+-]+)|message\/rfc822)$/;

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/**
 * RFC 9110 §8.3.1: `type "/" subtype *( OWS ";" OWS parameter )`, type, subtype and parameter names
 * tokens, a parameter's value a token or a quoted string.
 */
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"))*$`,
);
/** The longest media type taken (the registration limit of RFC 6838 §4.2 is 127 characters each for type and subtype). */
const MAX_MEDIA_TYPE_LENGTH = 255;

/** Whether `text` is a media type: `type/subtype` and parameters, at most 255 characters. */
export const isMediaType = (text: string): boolean =>
  text.length <= MAX_MEDIA_TYPE_LENGTH && MEDIA_TYPE.test(text);

/** A media type's type and subtype, trimmed and lower-cased (case-insensitive, RFC 9110 §8.3.1). */
const essenceOf = (mediaType: string): string => (mediaType.split(';')[0] as string).trim().toLowerCase();

/** A media type with its essence as `essenceOf` writes it (`Image/PNG` → `image/png`), its parameters as given. */
export function normalizeMediaType(mediaType: string): string {
  const semicolon = mediaType.indexOf(';');
  return semicolon === -1 ? essenceOf(mediaType) : `${essenceOf(mediaType)}${mediaType.slice(semicolon)}`;
}

/** The Dify type of a media type (`image/png` → image), if it says. */
export function typeOfMediaType(mediaType: string): FileType | undefined {
  const type = essenceOf(mediaType);
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('text/') || DOCUMENT_MEDIA_TYPE.test(type)) return 'document';
  return undefined;
}

/** The extension of a file name or URL path (`Report.PDF` → `pdf`), without query or fragment. */
export function extensionOf(name: string): string | undefined {
  const last = name.split(/[?#]/)[0]?.split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  return dot > 0 && dot < last.length - 1 ? last.slice(dot + 1).toLowerCase() : undefined;
}

/** An `allowed_file_extensions` entry as `extensionOf` writes it: `.PDF` → `pdf`. */
export const normalizeExtension = (extension: string): string =>
  extension.trim().replace(/^\./, '').toLowerCase();

/** Media types of the extensions apps return most, for files whose app gave none. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  mp3: 'audio/mpeg',
  mpga: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mpeg: 'video/mpeg',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  zip: 'application/zip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** The media type of a file name's extension, when it is a common one. */
export function mediaTypeOfName(name: string): string | undefined {
  const extension = extensionOf(name);
  return extension === undefined ? undefined : MEDIA_TYPES[extension];
}
