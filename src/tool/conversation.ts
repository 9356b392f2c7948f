import { CONVERSATION_ID } from './input-form.js';

/**
 * Conversations for chat apps (`HostApp.conversations`, README "Conversations"): the tool takes an
 * optional `conversation_id`, the run gets it as `run.conversationId`, and the result names the
 * conversation so the model can pass it back on its next call.
 */

/** What a checked run holds, as far as conversations go (`RunInputs`; structural, so this module imports nothing that imports it). */
interface ConversationRun {
  inputs: Record<string, unknown>;
  conversationId?: string;
}

/** What a successful `tools/call` result holds, as far as conversations go (`CallToolResult`). */
interface ConversationResult {
  /** The answer's text block first, then any file blocks. */
  content: object[];
  structuredContent?: Record<string, unknown>;
}

/** The input schema's `conversation_id` property, placed right after `query`. */
export const CONVERSATION_ID_PROPERTY: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'string',
  description:
    'The conversation_id of a previous result, to continue that conversation; omit it to start a new one',
});

/**
 * The output schema of a chat app that keeps conversations. `conversation_id` is not required: an
 * app that names no conversation, asked without one, has none to report.
 */
export const CONVERSATION_ANSWER_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    conversation_id: {
      type: 'string',
      description: 'Pass it back as the conversation_id argument to continue this conversation',
    },
  },
  required: ['answer'],
};

/** The tool description tells the model how to continue, since that is all a model reads about a tool. */
export function describeConversations(description: string): string {
  const how =
    'Each result carries a conversation_id: pass it back as the conversation_id argument to ask a follow-up question in the same conversation; omit it to start a new one.';
  return description ? `${description}\n\n${how}` : how;
}

/**
 * Moves the checked `conversation_id` argument out of the app's inputs into `conversationId`; an
 * empty one means a new conversation, like an absent one. The key is added only when there is an id.
 */
export function takeConversationId<Run extends ConversationRun>(value: Run): Run {
  const { [CONVERSATION_ID]: given, ...inputs } = value.inputs;
  const run: Run = { ...value, inputs };
  if (typeof given === 'string' && given !== '') run.conversationId = given;
  return run;
}

/**
 * The conversation a plain result or a message event names: `conversationId`, or `conversation_id`
 * as Dify's chat events spell it, so a host can pass those events through unchanged.
 */
export function conversationIdOf(source: unknown): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const { conversationId, conversation_id } = source as Record<string, unknown>;
  const id = typeof conversationId === 'string' ? conversationId : conversation_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Adds the conversation to a successful result: `conversation_id` in `structuredContent` (when the
 * version has it), and a text block right after the answer's (before any file blocks), because many
 * clients show a model only the content blocks and protocol versions before 2025-06-18 have nothing
 * else.
 */
export function attachConversation<Result extends ConversationResult>(
  result: Result,
  conversationId: string | undefined,
): Result {
  if (conversationId === undefined) return result;
  result.content.splice(1, 0, { type: 'text', text: `conversation_id: ${conversationId}` });
  if (result.structuredContent) result.structuredContent.conversation_id = conversationId;
  return result;
}
