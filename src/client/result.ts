import { isDeepStrictEqual } from 'node:util';
import type { AppFile } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import type { RemoteTool, RemoteToolResult } from './types.js';

type Block = Record<string, unknown>;

/**
 * Reads a `tools/call` result the way Dify's tool node does (MCP 2025-06-18, tools: "Tool Result"):
 * `variables` from `structuredContent` when the tool declares an `outputSchema`, `json` from
 * structured content without one and from JSON texts, `text` from text blocks, `files` from media
 * and resource blocks. Nothing is validated against the schema, as in Dify: a result that strays
 * from it is still read.
 */
export function readToolResult(raw: Record<string, unknown>, tool: RemoteTool | undefined): RemoteToolResult {
  const blocks = Array.isArray(raw.content) ? (raw.content as unknown[]).filter(isBlock) : [];
  const structured = isJsonObject(raw.structuredContent) ? raw.structuredContent : undefined;
  const texts: string[] = [];
  const json: unknown[] = [];
  const files: AppFile[] = [];
  const variables: Record<string, unknown> = {};

  if (structured && tool?.outputSchema) Object.assign(variables, structured);
  else if (structured) json.push(structured);

  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') {
      texts.push(block.text);
      const parsed = parseJsonText(block.text);
      // Servers repeat structured content as a JSON text for older clients (MCP 2025-06-18, tools).
      if (parsed !== undefined && !isDeepStrictEqual(parsed, structured)) json.push(parsed);
      continue;
    }
    const file = toFile(block);
    if (file) files.push(file);
  }
  return { isError: raw.isError === true, text: texts.join('\n'), json, variables, files, raw };
}

/** A text that is a JSON object or array, parsed; anything else (plain text, `42`, `"a"`) is `undefined`. */
function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  const first = trimmed[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function toFile(block: Block): AppFile | undefined {
  switch (block.type) {
    case 'image':
    case 'audio':
      return typeof block.data === 'string'
        ? inline(block.data, string(block.mimeType), undefined)
        : undefined;
    case 'resource_link':
      return typeof block.uri === 'string'
        ? withoutUndefined({
            url: block.uri,
            name: string(block.name) ?? lastSegment(block.uri),
            mimeType: string(block.mimeType),
            size: typeof block.size === 'number' ? block.size : undefined,
          })
        : undefined;
    case 'resource': {
      const resource = isJsonObject(block.resource) ? block.resource : undefined;
      if (!resource || typeof resource.uri !== 'string') return undefined;
      const name = lastSegment(resource.uri);
      if (typeof resource.blob === 'string') return inline(resource.blob, string(resource.mimeType), name);
      if (typeof resource.text === 'string') {
        const data = Buffer.from(resource.text, 'utf8').toString('base64');
        return inline(data, string(resource.mimeType) ?? 'text/plain', name);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function inline(data: string, mimeType: string | undefined, name: string | undefined): AppFile {
  return withoutUndefined({ data, mimeType, name, size: Buffer.byteLength(data, 'base64') });
}

/** The last path segment of a URI, as a file name: `file:///reports/q3.pdf` → `q3.pdf`. */
function lastSegment(uri: string): string | undefined {
  const path = uri.split(/[?#]/, 1)[0] ?? '';
  const segment = path.slice(path.lastIndexOf('/') + 1);
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const string = (value: unknown) => (typeof value === 'string' ? value : undefined);

const isBlock = (value: unknown): value is Block => isJsonObject(value) && typeof value.type === 'string';

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
