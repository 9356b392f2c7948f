/**
 * The fixture tools of the official MCP conformance suite (@modelcontextprotocol/conformance), as
 * host apps: one app per tool, named as the suite calls it, doing what its scenario describes. The
 * suite's own descriptions are in `node_modules/@modelcontextprotocol/conformance` (search for the
 * tool names). A real host would never publish these; they prove that what an app returns reaches
 * a client the way the MCP specification says.
 */
import { AppRunError } from 'express-app-mcp';

/** A 1×1 red PNG ("a minimal test image"). */
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** "A minimal test audio file": a WAV of 8 samples of silence, 8 kHz, 8-bit mono. */
const SILENT_WAV = (() => {
  const samples = Buffer.alloc(8, 0x80);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // one channel
  header.writeUInt32LE(8000, 24); // samples per second
  header.writeUInt32LE(8000, 28); // bytes per second
  header.writeUInt16LE(1, 32); // bytes per sample
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]).toString('base64');
})();

const base64 = (text) => Buffer.from(text, 'utf8').toString('base64');

/** @param {string} name @param {import('express-app-mcp').HostApp['mode']} mode */
const fixture = (name, mode, extra = {}) => ({
  id: name,
  name,
  mode,
  description: `Conformance fixture ${name}`,
  inputForm: [],
  ...extra,
});

/** @type {import('express-app-mcp').HostApp[]} */
export const FIXTURE_APPS = [
  fixture('test_simple_text', 'completion'),
  fixture('test_image_content', 'workflow', { outputs: [{ variable: 'image', type: 'file' }] }),
  fixture('test_audio_content', 'workflow', { outputs: [{ variable: 'audio', type: 'file' }] }),
  fixture('test_embedded_resource', 'workflow', { outputs: [{ variable: 'resource', type: 'file' }] }),
  fixture('test_multiple_content_types', 'workflow', {
    outputs: [
      { variable: 'image', type: 'file' },
      { variable: 'resource', type: 'file' },
    ],
  }),
  fixture('test_error_handling', 'completion'),
  fixture('test_tool_with_progress', 'workflow'),
];

/** @type {import('express-app-mcp').RunApp} */
export function runFixture(run) {
  switch (run.app.id) {
    case 'test_simple_text':
      return { answer: 'This is a simple text response for testing.' };
    case 'test_image_content':
      return { outputs: { image: { data: RED_PIXEL_PNG, mimeType: 'image/png', name: 'red-pixel.png' } } };
    case 'test_audio_content':
      return { outputs: { audio: { data: SILENT_WAV, mimeType: 'audio/wav', name: 'silence.wav' } } };
    case 'test_embedded_resource':
      // Inline data named by a URL: an embedded resource with that URI.
      return {
        outputs: {
          resource: {
            url: 'test://embedded-resource',
            data: base64('This is an embedded resource content.'),
            mimeType: 'text/plain',
          },
        },
      };
    case 'test_multiple_content_types':
      return {
        outputs: {
          image: { data: RED_PIXEL_PNG, mimeType: 'image/png', name: 'red-pixel.png' },
          resource: {
            url: 'test://mixed-content-resource',
            data: base64('{"test":"data","value":123}'),
            mimeType: 'application/json',
          },
        },
      };
    case 'test_error_handling':
      throw new AppRunError('This tool intentionally returns an error for testing');
    case 'test_tool_with_progress':
      return progressEvents(run.signal);
    default:
      throw new Error(`no fixture app "${run.app.id}"`);
  }
}

/** Progress 0/100, 50/100, 100/100, about 50 ms apart, then the (empty) outputs. */
async function* progressEvents(signal) {
  for (const progress of [0, 50, 100]) {
    if (progress > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    signal.throwIfAborted();
    yield { event: 'progress', progress, total: 100 };
  }
  yield { event: 'workflow_finished', outputs: {} };
}
