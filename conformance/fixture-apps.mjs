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
  // Ask a person mid-run (`run.ask`): on the call's stream in 2025-11-25, as input_required in 2026-07-28.
  fixture('test_elicitation', 'completion', {
    inputForm: [{ type: 'text-input', variable: 'message', label: 'Message', required: true }],
  }),
  fixture('test_elicitation_sep1034_defaults', 'completion'),
  fixture('test_elicitation_sep1330_enums', 'completion'),
  fixture('test_input_required_result_elicitation', 'completion'),
  fixture('test_input_required_result_request_state', 'completion'),
  fixture('test_input_required_result_tampered_state', 'completion'),
  fixture('test_input_required_result_multi_round', 'completion'),
];

const titled = (prefix, titles) => titles.map((label, index) => ({ value: `${prefix}${index + 1}`, label }));

/** SEP-1034: a default for each kind of field, as the suite's reference server declares them. */
const SEP1034_FIELDS = [
  { 'text-input': { variable: 'name', description: 'User name', default: 'John Doe' } },
  { number: { variable: 'age', integer: true, default: 30 } },
  { number: { variable: 'score', default: 95.5 } },
  { select: { variable: 'status', options: ['active', 'inactive', 'pending'], default: 'active' } },
  { checkbox: { variable: 'verified', default: true } },
];

/** SEP-1330: every kind of choice, single and multiple, with and without titles. */
const SEP1330_FIELDS = [
  { select: { variable: 'untitledSingle', options: ['option1', 'option2', 'option3'] } },
  {
    select: {
      variable: 'titledSingle',
      options: titled('value', ['First Option', 'Second Option', 'Third Option']),
    },
  },
  {
    select: {
      variable: 'legacyEnum',
      options: titled('opt', ['Option One', 'Option Two', 'Option Three']),
      legacy_enum_names: true,
    },
  },
  { select: { variable: 'untitledMulti', options: ['option1', 'option2', 'option3'], multiple: true } },
  {
    select: {
      variable: 'titledMulti',
      options: titled('value', ['First Choice', 'Second Choice', 'Third Choice']),
      multiple: true,
    },
  },
];

/** What a person answered, as the suite's reference tools word it. */
const answered = (answer) =>
  `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.values ?? {})}`;

/** The tools that ask, by app id; each returns the answer text. */
const ASKING_FIXTURES = {
  async test_elicitation(run) {
    const answer = await run.ask({
      message: String(run.inputs.message ?? 'Please provide your information'),
      fields: [
        { 'text-input': { variable: 'username', label: 'Username' } },
        { 'text-input': { variable: 'email', label: 'Email' } },
      ],
    });
    return `User response: ${answer.action}, ${JSON.stringify(answer.values ?? {})}`;
  },
  async test_elicitation_sep1034_defaults(run) {
    return answered(await run.ask({ message: 'Please review your information', fields: SEP1034_FIELDS }));
  },
  async test_elicitation_sep1330_enums(run) {
    return answered(await run.ask({ message: 'Please make your selections', fields: SEP1330_FIELDS }));
  },
  async test_input_required_result_elicitation(run) {
    const answer = await run.ask({
      key: 'user_name',
      message: 'What is your name?',
      fields: [{ 'text-input': { variable: 'name', label: 'Name', required: true } }],
    });
    return answer.action === 'accept' ? `Hello, ${answer.values.name}!` : `No name: ${answer.action}`;
  },
  test_input_required_result_request_state: confirm,
  test_input_required_result_tampered_state: confirm,
  async test_input_required_result_multi_round(run) {
    const first = await run.ask({
      key: 'step1',
      message: 'What is your name?',
      fields: [{ 'text-input': { variable: 'name', required: true } }],
    });
    const second = await run.ask({
      key: 'step2',
      message: 'What is your favourite colour?',
      fields: [{ 'text-input': { variable: 'color', required: true } }],
    });
    return `Hello ${first.values?.name}, you like ${second.values?.color}`;
  },
};

async function confirm(run) {
  const answer = await run.ask({
    key: 'confirm',
    message: 'Please confirm',
    fields: [{ checkbox: { variable: 'ok', label: 'Confirm', required: true } }],
  });
  return answer.action === 'accept' && answer.values.ok === true
    ? 'state-ok: confirmed'
    : `not confirmed: ${answer.action}`;
}

/** @type {import('express-app-mcp').RunApp} */
export function runFixture(run) {
  const asking = ASKING_FIXTURES[run.app.id];
  if (asking) return asking(run).then((answer) => ({ answer }));
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
