/**
 * A strict JSON Schema 2020-12 validator, the one the suites check every input and output schema
 * with. File inputs and outputs carry `format: "uri"`, and strict mode needs each format known.
 */
// The named export: under NodeNext the default import of this CommonJS module is its namespace.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export function jsonSchemaValidator(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}
