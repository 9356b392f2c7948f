/**
 * Conversations and files in one answer (README, "Conversations" and "Files in and out"), through
 * the tool layer directly: the conversation is named right after the answer's text, before any file
 * block, and beside `answer` and `files` in `structuredContent`; a result that fails names none.
 */
import { describe, expect, it } from 'vitest';
import type { AppFile, HostApp } from '../../src/types/index.js';
import { call, failure, stream } from '../helpers/tool-call.js';

const CHAT: HostApp = {
  id: 'manual-chat',
  name: 'Manual Chat',
  mode: 'chat',
  conversations: true,
  inputForm: [],
};
const LINK = 'https://files.example.com/manual.pdf';
const MANUAL: AppFile = { url: LINK, name: 'manual.pdf', mimeType: 'application/pdf' };
const ANSWER = 'Here is the manual';

describe('a conversation with files', () => {
  it('a plain result: the conversation block comes second, then the resource link', async () => {
    const { result } = await call(CHAT, () => ({ answer: ANSWER, files: [MANUAL], conversationId: 'c-1' }));
    expect(result).toEqual({
      content: [
        { type: 'text', text: ANSWER },
        { type: 'text', text: 'conversation_id: c-1' },
        { type: 'resource_link', uri: LINK, name: 'manual.pdf', mimeType: 'application/pdf' },
      ],
      structuredContent: {
        answer: ANSWER,
        files: [{ url: LINK, name: 'manual.pdf', mime_type: 'application/pdf' }],
        conversation_id: 'c-1',
      },
      isError: false,
    });
  });

  it('streamed events at 2024-11-05: the conversation block, then the file named in a text block', async () => {
    const { result } = await call(
      CHAT,
      () =>
        stream(
          { event: 'message', answer: ANSWER, conversation_id: 'c-2' },
          { event: 'message_file', file: MANUAL },
        ),
      { version: '2024-11-05' },
    );
    expect(result).toEqual({
      content: [
        { type: 'text', text: ANSWER },
        { type: 'text', text: 'conversation_id: c-2' },
        { type: 'text', text: `File manual.pdf (application/pdf): ${LINK}` },
      ],
      isError: false,
    });
  });

  it('a file that cannot be sent makes an error result that names no conversation', async () => {
    const { result, phases } = await call(CHAT, () => ({
      answer: ANSWER,
      files: [{ name: 'x.png' }],
      conversationId: 'c-3',
    }));
    expect(result).toEqual(
      failure(
        'the app returned a file that cannot be sent: file 1 must be a file: an object with a url or base64 data',
      ),
    );
    expect(phases).toEqual(['outputs']);
  });
});
