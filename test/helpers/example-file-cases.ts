/**
 * What the example app's two file demo apps show and answer through a real MCP client at
 * 2025-11-25, in the shape of the end-to-end test's demo cases: Image Facts (a file in, a generated
 * image out) and Manual Finder (a chat answer with a file link).
 */
import { imageFacts } from '../../example-app/image-facts.js';
import { FILE_INPUT_HOW, FILE_INPUT_SCHEMA, FILE_OUTPUT_SCHEMA } from './file-schemas.js';
import { PNG_BASE64 } from './sample-files.js';
import { failure } from './tool-call.js';
import { chatToolEntry, objectSchema, toolEntry } from './tool-entries.js';

const PNG_URL = `data:image/png;base64,${PNG_BASE64}`;
const IMAGE_TYPES = 'image (jpg, jpeg, png, webp, gif, svg)';

/** Image Facts on a 1×1 PNG: the facts, then the identicon as an image block. */
function imageFactsResult() {
  const { summary, details, identicon } = imageFacts({ type: 'image', url: PNG_URL });
  const data = identicon.data as string;
  const shown = { name: 'identicon.png', mime_type: 'image/png', size: Buffer.from(data, 'base64').length };
  return {
    content: [
      { type: 'text', text: JSON.stringify({ summary, details, identicon: shown }) },
      { type: 'image', data, mimeType: 'image/png' },
    ],
    structuredContent: { summary, details, identicon: { data, ...shown } },
    isError: false,
  };
}

const MANUAL = 'https://manuals.example.com/coffee-maker-3000.pdf';
const MANUAL_ANSWER = 'Here is the manual for Coffee Maker 3000: coffee-maker-3000.pdf';

export const FILE_DEMO_CASES = [
  {
    appId: 'image-facts',
    name: 'Image Facts',
    mode: 'workflow',
    tool: toolEntry(
      'Image Facts',
      'Tells the format, size and dimensions of an image sent as a base64 data: URL (other URLs are described, not downloaded), and draws its identicon.',
      objectSchema(
        {
          image: {
            ...FILE_INPUT_SCHEMA,
            description: `The image to describe. One file of type ${IMAGE_TYPES}: ${FILE_INPUT_HOW}`,
          },
        },
        ['image'],
      ),
      objectSchema(
        {
          summary: { type: 'string', description: 'The facts in one sentence' },
          details: { type: 'object', description: 'The facts one by one' },
          identicon: { ...FILE_OUTPUT_SCHEMA, description: 'A 48×48 PNG drawn from the image' },
        },
        ['summary', 'details', 'identicon'],
      ),
    ),
    valid: [{ arguments: { image: { url: PNG_URL } }, result: imageFactsResult() }],
    invalid: [
      { arguments: {}, result: failure('Invalid arguments for tool Image_Facts: image is required') },
      {
        arguments: { image: { url: 'https://files.example.com/report.pdf' } },
        result: failure(
          `Invalid arguments for tool Image_Facts: image must be of type ${IMAGE_TYPES}; it is document`,
        ),
      },
    ],
  },
  {
    appId: 'manual-finder',
    name: 'Manual Finder',
    mode: 'chat',
    tool: chatToolEntry('Manual Finder', 'Finds the PDF manual of a product and answers with a link to it.'),
    valid: [
      {
        arguments: { query: 'Coffee Maker 3000' },
        result: {
          content: [
            { type: 'text', text: MANUAL_ANSWER },
            {
              type: 'resource_link',
              uri: MANUAL,
              name: 'coffee-maker-3000.pdf',
              mimeType: 'application/pdf',
            },
          ],
          structuredContent: {
            answer: MANUAL_ANSWER,
            files: [{ url: MANUAL, name: 'coffee-maker-3000.pdf', mime_type: 'application/pdf' }],
          },
          isError: false,
        },
      },
    ],
    invalid: [
      { arguments: {}, result: failure('Invalid arguments for tool Manual_Finder: query is required') },
      { arguments: { query: '?!' }, result: failure('name a product, e.g. "Coffee Maker 3000"') },
    ],
  },
];
