import { inlineBytes } from './app-file.js';
import type { Produced } from './collect.js';
import { type ContentBlock, fileBlock } from './content-blocks.js';
import { attachConversation } from './conversation.js';
import type { ToolFeatures } from './features.js';
import { answerParts, outputParts } from './result-files.js';
import type { AppTool } from './tool.js';

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
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
  if (tool.conversations && produced.kind === 'answer' && !result.isError)
    attachConversation(result, produced.conversationId ?? conversationId);
  return result;
}

function shape(
  produced: Produced,
  tool: AppTool,
  features: ToolFeatures,
  options: ShapeOptions,
): CallToolResult {
  if (produced.kind === 'error') return errorResult(produced.message);
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
  return result;
}
