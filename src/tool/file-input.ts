import type { FileInput, FileType, InputVariable } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import { base64ByteLength, hasDataScheme, parseDataUrl } from './base64.js';
import {
  EXTENSIONS_BY_TYPE,
  extensionOf,
  FILE_TYPES,
  isMediaType,
  normalizeExtension,
  normalizeMediaType,
  typeOfExtension,
  typeOfMediaType,
} from './file-types.js';
import { stripNul } from './nul.js';

/** What bounds the files a client may send. */
export interface FileInputLimits {
  /** Largest decoded size of one `data:` URL. */
  maxDataUrlBytes: number;
}

/** 3 MiB: the largest file a `data:` URL carries by default. */
export const DEFAULT_MAX_DATA_URL_BYTES = 3 * 1024 * 1024;
/**
 * The default body limit: room for the largest default `data:` file as base64 (4 bytes for every 3,
 * so 4 MiB for 3 MiB), with 64 KiB more for the rest of the request: the JSON-RPC envelope, the
 * `data:` URL's head, the other arguments, a file name and a media type (255 characters at most).
 */
export const DEFAULT_MAX_BODY_BYTES = Math.ceil(DEFAULT_MAX_DATA_URL_BYTES / 3) * 4 + 64 * 1024;
export const DEFAULT_FILE_INPUT_LIMITS: FileInputLimits = { maxDataUrlBytes: DEFAULT_MAX_DATA_URL_BYTES };

type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** One file as a client sends it (README, "Files in and out"). */
const FILE_SCHEMA = Object.freeze({
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri' },
    filename: { type: 'string' },
    mime_type: { type: 'string' },
  },
  required: ['url'],
  additionalProperties: false,
});

/**
 * Whether a `file` or `file-list` variable can be filled over MCP: only by URL (`remote_url`), so a
 * variable that allows only uploads (`local_file`) is not offered.
 */
export function offeredOverMcp(input: InputVariable): boolean {
  const methods = input.allowed_file_upload_methods;
  return !Array.isArray(methods) || methods.length === 0 || methods.includes('remote_url');
}

/** The JSON Schema of a `file` or `file-list` variable. */
export function fileKeywords(input: InputVariable): Record<string, unknown> {
  if (input.type === 'file') return { ...FILE_SCHEMA };
  const maxItems = maxFilesOf(input);
  return maxItems === undefined
    ? { type: 'array', items: FILE_SCHEMA }
    : { type: 'array', items: FILE_SCHEMA, maxItems };
}

/** What a model must know to fill the variable, appended to its description. */
export function fileHint(input: InputVariable): string {
  const rules = rulesOf(input);
  const kind = rules.allowed ? `of type ${describeAllowed(rules)}` : 'of any type';
  const count = maxFilesOf(input);
  const head =
    input.type === 'file'
      ? `One file ${kind}`
      : `A list of ${count === undefined ? '' : `up to ${count} `}files, each ${kind}`;
  return `${head}: {"url": an https, http or base64 data: URL, "filename" and "mime_type" when known}.`;
}

/**
 * Checks a `file` or `file-list` argument (README, "Files in and out"): the URL's scheme, a `data:` URL's size, and
 * the file type against the variable's `allowed_file_types`. A file's type is told by its
 * extension (from `filename`, else the URL's path), else by its media type (`mime_type`, else a
 * `data:` URL's); it must fit the types allowed. Nothing is ever downloaded.
 */
export function compileFileCheck(
  input: InputVariable,
  limits: FileInputLimits,
): (value: unknown) => Checked<FileInput | FileInput[]> {
  const rules = { ...rulesOf(input), maxDataUrlBytes: limits.maxDataUrlBytes };
  const name = input.variable;
  if (input.type === 'file') return (value) => checkFile(name, value, rules);
  const maxFiles = maxFilesOf(input);
  return (value) => {
    if (!Array.isArray(value)) return { ok: false, problems: [`${name} must be a list of files`] };
    const problems: string[] = [];
    if (maxFiles !== undefined && value.length > maxFiles) {
      problems.push(`${name} must hold at most ${maxFiles} files`);
    }
    const files: FileInput[] = [];
    let wrongFiles = 0;
    for (const [index, item] of value.entries()) {
      const checked = checkFile(`${name}[${index}]`, item, rules);
      if (checked.ok) files.push(checked.value);
      else if (++wrongFiles > MAX_FILES_TOLD) {
        problems.push(`${name}: more files have problems; only the first ${MAX_FILES_TOLD} are told`);
        break;
      } else problems.push(...checked.problems);
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, value: files };
  };
}

/**
 * How many wrong files of a list have their problems told; at the next one the list is not read
 * further. A list may be as long as the body allows, and its error must stay readable and small.
 */
const MAX_FILES_TOLD = 10;

interface Rules {
  /** `null`: any type. */
  allowed: ReadonlySet<FileType> | null;
  /** With `custom`: the extensions it accepts; empty: any. */
  extensions: ReadonlySet<string>;
}

function rulesOf(input: InputVariable): Rules {
  const types = Array.isArray(input.allowed_file_types)
    ? input.allowed_file_types.filter((type) => FILE_TYPES.includes(type))
    : [];
  const extensions = Array.isArray(input.allowed_file_extensions)
    ? input.allowed_file_extensions.filter((item) => typeof item === 'string').map(normalizeExtension)
    : [];
  return {
    allowed: types.length > 0 ? new Set(types) : null,
    extensions: new Set(extensions.filter((extension) => extension !== '')),
  };
}

/** A `file-list`'s `max_length` is its most files (Dify's number limit). */
function maxFilesOf(input: InputVariable): number | undefined {
  const limit = input.max_length;
  return typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

const WEB_SCHEMES = new Set(['https:', 'http:']);

function checkFile(label: string, value: unknown, rules: Rules & FileInputLimits): Checked<FileInput> {
  if (!isJsonObject(value)) return { ok: false, problems: [`${label} must be a file: {"url": "…"}`] };
  const record = value;
  const problems: string[] = [];
  const text = (key: string): string | undefined => {
    const field = Object.hasOwn(record, key) ? record[key] : undefined;
    if (field === undefined || field === null) return undefined;
    if (typeof field === 'string') return stripNul(field);
    problems.push(`${label}.${key} must be a string`);
    return undefined;
  };
  const url = text('url');
  const filename = text('filename') || undefined;
  const mimeType = text('mime_type') || undefined;
  if (url === undefined || url === '') {
    const wrongType = `${label}.url must be a string`;
    if (!problems.includes(wrongType)) problems.push(`${label}.url is required`);
    return { ok: false, problems };
  }

  // A data: URL is read by its own parser only: the URL parser would copy megabytes of base64 twice.
  const isDataUrl = hasDataScheme(url);
  const dataUrl = isDataUrl ? parseDataUrl(url) : null;
  const parsed = isDataUrl || !URL.canParse(url) ? null : new URL(url);
  if (isDataUrl ? !dataUrl : !parsed || !WEB_SCHEMES.has(parsed.protocol) || !parsed.host) {
    problems.push(`${label}.url must be an https or http URL, or a base64 data: URL`);
    return { ok: false, problems };
  }
  if (dataUrl) {
    const bytes = base64ByteLength(dataUrl.data);
    if (bytes > rules.maxDataUrlBytes) {
      problems.push(
        `${label} is ${bytes} bytes, more than the ${rules.maxDataUrlBytes} a data: URL may carry; send an https URL instead`,
      );
    }
    if (dataUrl.mediaType !== undefined && !isMediaType(dataUrl.mediaType)) {
      problems.push(`${label}.url must name a media type such as image/png, or none, before ;base64`);
    }
  }
  if (mimeType !== undefined && !isMediaType(mimeType)) {
    problems.push(`${label}.mime_type must be a media type such as image/png (at most 255 characters)`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const extension = extensionOf(filename ?? parsed?.pathname ?? '');
  const mediaType = mimeType ?? dataUrl?.mediaType;
  const matched = matchType(extension, mediaType, rules);
  if (matched.problem)
    problems.push(`${label} must be of type ${describeAllowed(rules)}; ${matched.problem}`);
  if (problems.length > 0 || matched.type === undefined) return { ok: false, problems };

  // The app gets the URL as the WHATWG URL parser writes it, whatever the client's spelling.
  const href = dataUrl ? dataUrlHref(url, dataUrl.data) : (parsed as URL).href;
  const file: FileInput = { type: matched.type, url: href };
  if (filename !== undefined) file.filename = filename;
  if (mediaType !== undefined) file.mimeType = normalizeMediaType(mediaType);
  return { ok: true, value: file };
}

/**
 * A base64 `data:` URL as the URL parser writes it, without copying its payload through the parser:
 * only the head (up to the comma) can change, since base64 has no character the parser escapes or
 * drops, and no `?` or `#`.
 */
function dataUrlHref(url: string, data: string): string {
  const head = url.slice(0, url.length - data.length);
  return `${new URL(head).href}${data}`;
}

/** The Dify type a file matches among those allowed, or why it matches none. */
function matchType(
  extension: string | undefined,
  mediaType: string | undefined,
  rules: Rules,
): { type: FileType; problem?: undefined } | { type?: undefined; problem: string } {
  const byExtension = extension === undefined ? undefined : typeOfExtension(extension);
  const byMediaType = mediaType === undefined ? undefined : typeOfMediaType(mediaType);
  const detected = byExtension ?? byMediaType;
  const { allowed } = rules;
  if (!allowed) return { type: detected ?? 'custom' };

  if (detected !== undefined && allowed.has(detected)) {
    // An extension and a media type that disagree must both fit.
    if (byMediaType === undefined || allowed.has(byMediaType) || allowed.has('custom')) {
      return { type: detected };
    }
    return { problem: `its mime_type ${mediaType} is ${byMediaType}` };
  }
  if (allowed.has('custom')) {
    if (rules.extensions.size === 0) return { type: 'custom' };
    if (extension !== undefined && rules.extensions.has(extension)) return { type: 'custom' };
  }
  if (detected !== undefined) return { problem: `it is ${detected}` };
  if (extension !== undefined) return { problem: `.${extension} files are not accepted` };
  return { problem: 'give a filename with its extension, or a mime_type' };
}

/** "image (jpg, png, …) or document (txt, pdf, …)", for descriptions and problems. */
function describeAllowed(rules: Rules): string {
  const parts = [...(rules.allowed ?? [])].map((type) => {
    if (type !== 'custom') return `${type} (${EXTENSIONS_BY_TYPE[type].join(', ')})`;
    return `custom (${rules.extensions.size > 0 ? [...rules.extensions].join(', ') : 'any extension'})`;
  });
  return parts.length <= 1 ? (parts[0] ?? 'any') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}
