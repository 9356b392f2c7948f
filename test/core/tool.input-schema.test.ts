/**
 * docs/http-contract.md, "The tool": the tool's `inputSchema`, built from the app's input form by the tool layer directly
 * (no HTTP). Every row of the type table, the implicit `query`, descriptions, defaults and both
 * shapes of the form.
 */
import { describe, expect, it } from 'vitest';
import { buildInputSchema } from '../../src/tool/input-schema.js';
import type { AppMode, HostApp, InputVariable, NestedInputVariable } from '../../src/types/index.js';
import { FILE_INPUT_HOW, FILE_INPUT_SCHEMA } from '../helpers/file-schemas.js';

const appWith = (
  inputForm: (InputVariable | NestedInputVariable)[],
  mode: AppMode = 'workflow',
): HostApp => ({ id: 'app', name: 'App', mode, inputForm });

const schemaOf = (
  inputForm: (InputVariable | NestedInputVariable)[],
  { mode = 'workflow' as AppMode, parameters = {} as Record<string, string> } = {},
) => buildInputSchema(appWith(inputForm, mode), parameters);

describe('the input schema: one property per form type', () => {
  it.each<[string, InputVariable, Record<string, unknown>]>([
    ['text-input', { type: 'text-input', variable: 'v' }, { type: 'string', description: '' }],
    [
      'text-input with max_length',
      { type: 'text-input', variable: 'v', max_length: 48 },
      { type: 'string', maxLength: 48, description: '' },
    ],
    ['paragraph', { type: 'paragraph', variable: 'v' }, { type: 'string', description: '' }],
    [
      'paragraph with max_length',
      { type: 'paragraph', variable: 'v', max_length: 10000 },
      { type: 'string', maxLength: 10000, description: '' },
    ],
    [
      'select with options',
      { type: 'select', variable: 'v', options: ['en', 'fr', 'de'] },
      { type: 'string', enum: ['en', 'fr', 'de'], description: '' },
    ],
    ['select without options', { type: 'select', variable: 'v' }, { type: 'string', description: '' }],
    [
      'select with an empty options list',
      { type: 'select', variable: 'v', options: [] },
      { type: 'string', description: '' },
    ],
    ['number', { type: 'number', variable: 'v' }, { type: 'number', description: '' }],
    ['checkbox', { type: 'checkbox', variable: 'v' }, { type: 'boolean', description: '' }],
    ['json_object', { type: 'json_object', variable: 'v' }, { type: 'object', description: '' }],
    [
      'json_object with a json_schema',
      {
        type: 'json_object',
        variable: 'v',
        json_schema: {
          type: 'object',
          title: 'not copied',
          properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
          required: ['city'],
          additionalProperties: false,
        },
      },
      {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
        required: ['city'],
        additionalProperties: false,
        description: '',
      },
    ],
    [
      'json_object with a json_schema given as JSON text',
      {
        type: 'json_object',
        variable: 'v',
        json_schema: '{"properties":{"city":{"type":"string"}},"required":["city"]}' as unknown as object,
      },
      { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], description: '' },
    ],
  ])('%s', (_, input, property) => {
    expect(schemaOf([{ ...input, required: true }])).toEqual({
      type: 'object',
      properties: { v: property },
      required: ['v'],
    });
  });

  it.each<[string, Partial<InputVariable>]>([
    ['external_data_tool', { type: 'external_data_tool' }],
    // Files come by URL only, so a file input that allows only uploads stays hidden.
    ['file allowing uploads only', { type: 'file', allowed_file_upload_methods: ['local_file'] }],
    ['file-list allowing uploads only', { type: 'file-list', allowed_file_upload_methods: ['local_file'] }],
  ])('a %s input is not exposed at all, not even when required', (_, input) => {
    expect(
      schemaOf([
        { type: 'file', ...input, variable: 'attachment', label: 'Attachment', required: true },
        { type: 'text-input', variable: 'text', required: true },
      ]),
    ).toEqual({
      type: 'object',
      properties: { text: { type: 'string', description: '' } },
      required: ['text'],
    });
  });

  it('a select never gets an empty enum, whatever its options hold', () => {
    const schema = schemaOf([
      { type: 'select', variable: 'a', options: [] },
      { type: 'select', variable: 'b', options: [1, 2] as unknown as string[] },
      { type: 'select', variable: 'c', options: ['x', 'x', 'y'] },
    ]);
    expect(schema.properties).toEqual({
      a: { type: 'string', description: '' },
      b: { type: 'string', description: '' },
      c: { type: 'string', enum: ['x', 'y'], description: '' },
    });
  });

  it('a max_length that is not a positive integer adds no maxLength', () => {
    const schema = schemaOf([
      { type: 'text-input', variable: 'a', max_length: 0 },
      { type: 'text-input', variable: 'b', max_length: 2.5 },
    ]);
    expect(schema.properties).toEqual({
      a: { type: 'string', description: '' },
      b: { type: 'string', description: '' },
    });
  });

  it('entries of an unknown type are left out', () => {
    const schema = schemaOf([
      { type: 'signature', variable: 'sig' } as unknown as InputVariable,
      { type: 'number', variable: 'n' },
    ]);
    expect(schema).toEqual({
      type: 'object',
      properties: { n: { type: 'number', description: '' } },
      required: [],
    });
  });
});

describe('required and the implicit query', () => {
  const form: InputVariable[] = [
    { type: 'text-input', variable: 'name', required: true },
    { type: 'number', variable: 'count' },
  ];

  it('`required` is always present, also when nothing is required', () => {
    expect(schemaOf([])).toEqual({ type: 'object', properties: {}, required: [] });
    expect(schemaOf([{ type: 'number', variable: 'n' }]).required).toEqual([]);
  });

  it.each<AppMode>(['chat', 'advanced-chat', 'agent-chat'])(
    'a %s app takes a required query string, first',
    (mode) => {
      const schema = schemaOf(form, { mode });
      expect(schema).toEqual({
        type: 'object',
        properties: {
          query: { type: 'string', description: 'User Input/Question content' },
          name: { type: 'string', description: '' },
          count: { type: 'number', description: '' },
        },
        required: ['query', 'name'],
      });
      expect(Object.keys(schema.properties)).toEqual(['query', 'name', 'count']);
    },
  );

  it.each<AppMode>(['workflow', 'completion'])('a %s app gets no implicit query', (mode) => {
    expect(schemaOf(form, { mode })).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: '' }, count: { type: 'number', description: '' } },
      required: ['name'],
    });
  });

  it('in a chat app the implicit query wins over a form variable named query', () => {
    expect(
      schemaOf([{ type: 'number', variable: 'query', label: 'Not the question', required: true }], {
        mode: 'chat',
      }),
    ).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: 'User Input/Question content' } },
      required: ['query'],
    });
  });

  it('a workflow may name an input query like any other', () => {
    expect(schemaOf([{ type: 'paragraph', variable: 'query', required: true }])).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: '' } },
      required: ['query'],
    });
  });

  it('a variable listed twice is described once, by its first entry', () => {
    expect(
      schemaOf([
        { type: 'number', variable: 'n', required: true },
        { type: 'text-input', variable: 'n' },
      ]),
    ).toEqual({ type: 'object', properties: { n: { type: 'number', description: '' } }, required: ['n'] });
  });
});

describe('property descriptions and defaults', () => {
  const variable: InputVariable = {
    type: 'text-input',
    variable: 'city',
    label: 'City label',
    description: 'City description',
  };

  it("the server's parameter description comes first", () => {
    expect(schemaOf([variable], { parameters: { city: 'Where to look' } }).properties.city).toEqual({
      type: 'string',
      description: 'Where to look',
    });
  });

  it("then the variable's description", () => {
    expect(schemaOf([variable]).properties.city?.description).toBe('City description');
  });

  it('then its label', () => {
    expect(schemaOf([{ ...variable, description: undefined }]).properties.city?.description).toBe(
      'City label',
    );
  });

  it('else an empty string', () => {
    expect(
      schemaOf([{ type: 'text-input', variable: 'city' }], { parameters: {} }).properties.city?.description,
    ).toBe('');
  });

  it('an empty parameter description falls back to the app wording', () => {
    expect(schemaOf([variable], { parameters: { city: '' } }).properties.city?.description).toBe(
      'City description',
    );
  });

  it('stale parameter keys for variables the form no longer has are ignored', () => {
    expect(
      schemaOf([{ type: 'number', variable: 'n' }], {
        parameters: { removed: 'Gone from the form', toString: 'not a variable' },
      }),
    ).toEqual({ type: 'object', properties: { n: { type: 'number', description: '' } }, required: [] });
  });

  it('a parameter never describes a variable through the prototype chain', () => {
    expect(schemaOf([{ type: 'number', variable: 'toString' }]).properties.toString).toEqual({
      type: 'number',
      description: '',
    });
  });

  it('a default is copied for every type that has one', () => {
    const schema = schemaOf([
      { type: 'number', variable: 'top_n', default: 3 },
      { type: 'select', variable: 'language', options: ['en', 'fr'], default: 'en' },
      { type: 'checkbox', variable: 'verbose', default: false },
      { type: 'paragraph', variable: 'note', default: '' },
      { type: 'json_object', variable: 'config', default: { a: 1 } },
    ]);
    expect(schema.properties).toEqual({
      top_n: { type: 'number', description: '', default: 3 },
      language: { type: 'string', enum: ['en', 'fr'], description: '', default: 'en' },
      verbose: { type: 'boolean', description: '', default: false },
      note: { type: 'string', description: '', default: '' },
      config: { type: 'object', description: '', default: { a: 1 } },
    });
  });

  it('no default keyword when the variable has none, or a null one', () => {
    expect(
      schemaOf([
        { type: 'number', variable: 'a' },
        { type: 'number', variable: 'b', default: null },
      ]).properties,
    ).toEqual({ a: { type: 'number', description: '' }, b: { type: 'number', description: '' } });
  });
});

describe('both shapes of the input form', () => {
  const flat: InputVariable[] = [
    { type: 'paragraph', variable: 'text', label: 'Text', required: true, max_length: 100 },
    { type: 'select', variable: 'language', label: 'Language', options: ['en', 'fr'] },
    { type: 'file', variable: 'upload', required: true },
  ];
  const nested: NestedInputVariable[] = [
    { paragraph: { variable: 'text', label: 'Text', required: true, max_length: 100 } },
    { select: { variable: 'language', label: 'Language', options: ['en', 'fr'] } },
    { file: { variable: 'upload', required: true } },
  ];
  const expected = {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 100, description: 'Text' },
      language: { type: 'string', enum: ['en', 'fr'], description: 'Language' },
      upload: { ...FILE_INPUT_SCHEMA, description: `One file of any type: ${FILE_INPUT_HOW}` },
    },
    required: ['text', 'upload'],
  };

  it('the flat form', () => {
    expect(schemaOf(flat)).toEqual(expected);
  });

  it("Dify's old nested form gives the same schema", () => {
    expect(schemaOf(nested)).toEqual(expected);
  });

  it('the two shapes may be mixed in one form', () => {
    expect(schemaOf([flat[0]!, nested[1]!, nested[2]!])).toEqual(expected);
  });
});
