/**
 * The JSON Schemas of files as the README spells them ("Files in and out"), written out once for the
 * suites that assert whole tools: a file input and a file in `structuredContent`.
 */

/** One `file` input: `{url, filename?, mime_type?}`. */
export const FILE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri' },
    filename: { type: 'string' },
    mime_type: { type: 'string' },
  },
  required: ['url'],
  additionalProperties: false,
};

/** What a model reads about sending a file, after the type the variable takes. */
export const FILE_INPUT_HOW =
  '{"url": an https, http or base64 data: URL, "filename" and "mime_type" when known}.';

const outputVariant = (key: string, keywords: object) => ({
  type: 'object',
  properties: {
    [key]: keywords,
    name: { type: 'string' },
    mime_type: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
  },
  required: [key, 'name', 'mime_type'],
  additionalProperties: false,
});

/** A declared `file` output: a link or inline data, `{url | data, name, mime_type, size?}`. */
export const FILE_OUTPUT_SCHEMA = {
  oneOf: [
    outputVariant('url', { type: 'string', format: 'uri' }),
    outputVariant('data', { type: 'string', contentEncoding: 'base64' }),
  ],
};
