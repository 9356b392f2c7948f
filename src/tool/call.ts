import { inlineBytes } from './app-file.js';
import type { Produced } from './collect.js';
import { type ContentBlock, fileBlock } from './content-blocks.js';
import { attachConversation } from './conversation.js';
import type { ToolFeatures } from './features.js';
import { answerParts, outputParts } from './result-files.js';
import { DEFAULT_MAX_RESULT_BYTES, measureResult, type ResultSize } from './result-size.js';
import type { AppTool } from './tool.js';

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  /** `usage`: what the run reported it used (a `message_end` event), on a successful result only. */
  _meta?: Record<string, unknown>;
}

export const DEFAULT_MAX_INLINE_RESULT_BYTES = 4 * 1024 * 1024;

/** An error result never carries `structuredContent`: there is no result to describe. */
export const errorResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** Where `shape` reports outputs it refuses, and how many bytes of inline files a result may carry. */
export interface ShapeOptions {
  report: (error: unknown, phase: 'outputs') => void;
  /** Most bytes of inline files one result may carry (README, "Files in and out"); more is an error result. Default: 4 MiB. */
  maxInlineResultBytes?: number;
  /** Most bytes one result may take once serialized (docs/http-contract.md, "The tool"); more is an error result. Default: 16 MiB. */
  maxResultBytes?: number;
}

/** What the client reads when a result is too large; the same words go to `onError`. */
export function tooLargeMessage(limit: number, bytes?: number): string {
  const size = bytes === undefined ? 'more than' : `${bytes} bytes, more than`;
  return `the result is too large: ${size} the ${limit} bytes one result may carry (maxResultBytes)`;
}

/**
 * The `tools/call` result of what a run produced (README, "runApp, mode by mode"): outputs checked
 * against the declared output schema, files inlined within the limit, and an app that names no
 * conversation continuing the one the client asked for.
 */
export function resultOf(
  produced: Produced,
  tool: AppTool,
  features: ToolFeatures,
  conversationId: string | undefined,
  options: ShapeOptions,
): CallToolResult {
  const result = shape(produced, tool, features, options);
  if (result.isError) return result;
  if (tool.conversations && produced.kind === 'answer')
    attachConversation(result, produced.conversationId ?? conversationId);
  const limit = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const size = measureResult(result, limit);
  if (size.fits) return result;
  return tooLargeOrThrow(options, limit, size);
}

/**
 * A result that does not fit: too large, or, when it cannot be serialized at all (a `BigInt`, a
 * cycle), the serialization's error, thrown for the run to fail with ("the app failed to run").
 */
function tooLargeOrThrow(options: ShapeOptions, limit: number, size: Exclude<ResultSize, { fits: true }>) {
  if ('unserializable' in size) throw size.unserializable;
  return tooLarge(options, limit, size.bytes);
}

function tooLarge(options: ShapeOptions, limit: number, bytes?: number): CallToolResult {
  const message = tooLargeMessage(limit, bytes);
  options.report(new Error(message), 'outputs');
  return errorResult(message);
}

function shape(
  produced: Produced,
  tool: AppTool,
  features: ToolFeatures,
  options: ShapeOptions,
): CallToolResult {
  if (produced.kind === 'error') return errorResult(produced.message);
  const limit = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (produced.kind === 'tooLarge') return tooLarge(options, limit);
  // Outputs past the limit are refused before their text is made (it serializes them).
  if (produced.kind === 'outputs') {
    const size = measureResult(produced.outputs, limit);
    if (!size.fits) return tooLargeOrThrow(options, limit, size);
  }
  if (produced.kind === 'outputs' && tool.checkOutputs) {
    const problems = tool.checkOutputs(produced.outputs);
    if (problems.length > 0) {
      const message = `the app returned outputs that do not match its declared output schema: ${problems.join('; ')}`;
      options.report(new Error(message), 'outputs');
      return errorResult(message);
    }
  }
  const parts =
    produced.kind === 'outputs'
      ? outputParts(produced.outputs, tool.fileOutputs)
      : answerParts(produced.answer, produced.files);
  if ('problem' in parts) {
    const message = `the app returned a file that cannot be sent: ${parts.problem}`;
    options.report(new Error(message), 'outputs');
    return errorResult(message);
  }
  const content: ContentBlock[] = [{ type: 'text', text: parts.text }];
  if (parts.files.length > 0) {
    const bytes = parts.files.reduce((sum, file) => sum + inlineBytes(file), 0);
    const limit = options.maxInlineResultBytes ?? DEFAULT_MAX_INLINE_RESULT_BYTES;
    if (bytes > limit) {
      const message = `the app returned ${bytes} bytes of inline files, more than the ${limit} bytes one result may carry`;
      options.report(new Error(message), 'outputs');
      return errorResult(message);
    }
    for (const file of parts.files) content.push(fileBlock(file, features));
  }
  const result: CallToolResult = { content, isError: false };
  if (features.structured) result.structuredContent = parts.structured;
  // MCP "General fields": `_meta` is where a result carries information besides its content.
  if (produced.usage !== undefined) result._meta = { usage: produced.usage };
  return result;
}
