import type { ResultFile } from './app-file.js';
import type { ToolFeatures } from './features.js';

/** The content blocks a `tools/call` result may carry (MCP 2025-06-18 "Tool Result"). */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; blob: string } }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; size?: number };

/**
 * The content block of one result file for a protocol version (docs/http-contract.md,
 * "Version-gated shapes"): inline `image/*` → `image`, inline `audio/*` → `audio` (from
 * 2025-03-26), a link → `resource_link` (from 2025-06-18; before, a text naming the file and its
 * URL), any other inline data → an embedded `resource` with a `blob`.
 */
export function fileBlock(file: ResultFile, features: ToolFeatures): ContentBlock {
  const { mimeType } = file;
  if (file.data === undefined) {
    const url = file.url as string;
    if (features.resourceLinks) {
      const link: ContentBlock = { type: 'resource_link', uri: url, name: file.name };
      if (mimeType !== undefined) link.mimeType = mimeType;
      if (file.size !== undefined) link.size = file.size;
      return link;
    }
    const about = [mimeType, file.size === undefined ? undefined : `${file.size} bytes`].filter(Boolean);
    return {
      type: 'text',
      text: `File ${file.name}${about.length > 0 ? ` (${about.join(', ')})` : ''}: ${url}`,
    };
  }
  if (mimeType?.startsWith('image/')) return { type: 'image', data: file.data, mimeType };
  if (mimeType?.startsWith('audio/') && features.audioContent) {
    return { type: 'audio', data: file.data, mimeType };
  }
  const resource: { uri: string; mimeType?: string; blob: string } = {
    uri: file.dataUri ?? fileUri(file.name),
    blob: file.data,
  };
  if (mimeType !== undefined) resource.mimeType = mimeType;
  return { type: 'resource', resource };
}

/**
 * Inline data the app did not name by URL gets a `file:` URI from its name: MCP 2025-06-18
 * "Resources" (Common URI Schemes) allows `file://` for resources that behave like files without
 * being on a real filesystem.
 */
const fileUri = (name: string): string => `file:///${encodeURIComponent(name)}`;
