/**
 * What a client sees of a chat app that keeps conversations (README, "Conversations"), written out
 * as the wire shows it, for the suites that check it: the input property, the sentence the tool
 * description ends with, and the output schema.
 */

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
