/**
 * What a client sees of a chat app that keeps conversations (README, "Conversations"), written out
 * as the wire shows it, for the suites that check it: the input property, the sentence the tool
 * description ends with, the output schema, and the result.
 */
import { expect } from 'vitest';

/** The `conversation_id` property of the input schema, right after `query`. */
export const CONVERSATION_ID_INPUT = {
  type: 'string',
  description:
    'The conversation_id of a previous result, to continue that conversation; omit it to start a new one',
};

/** The paragraph the tool description ends with. */
export const HOW_TO_CONTINUE =
  'Each result carries a conversation_id: pass it back as the conversation_id argument to ask a follow-up question in the same conversation; omit it to start a new one.';

/** The output schema: `answer` required, `conversation_id` when the run names a conversation. */
export const CONVERSATION_OUTPUT_SCHEMA = {
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

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * A successful chat result with a conversation, as the client reads it: the answer, a text block
 * naming the conversation, and both in `structuredContent` when the version has it (2025-06-18 on).
 * Without `conversationId`, any new conversation the example's FAQ Bot starts (a UUID).
 */
export function answeredInConversation(
  answer: string,
  conversationId?: string,
  { structured = true }: { structured?: boolean } = {},
) {
  const id = conversationId ?? expect.stringMatching(new RegExp(`^${UUID}$`));
  const named = conversationId
    ? `conversation_id: ${conversationId}`
    : expect.stringMatching(new RegExp(`^conversation_id: ${UUID}$`));
  const content = [
    { type: 'text' as const, text: answer },
    { type: 'text' as const, text: named },
  ];
  return structured
    ? { content, structuredContent: { answer, conversation_id: id }, isError: false }
    : { content, isError: false };
}
