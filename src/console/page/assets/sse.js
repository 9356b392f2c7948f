/**
 * Reads a `text/event-stream` body as it arrives (HTML Living Standard, "Server-sent events":
 * lines end with CRLF, LF or CR; `data:` lines are joined with LF; a blank line ends an event;
 * lines starting with `:` are comments, which the MCP endpoint sends as heartbeats).
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<string>} each event's data
 */
export async function* eventData(body) {
  // TypeScript's DOM types disagree with themselves on the decoder's input type.
  const reader = /** @type {ReadableStream<any>} */ (body).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  /** @type {string[]} */
  let data = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      const lines = buffer.split(/\r\n|\n|\r(?!$)/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
