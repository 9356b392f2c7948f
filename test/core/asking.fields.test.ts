/**
 * The fields of `run.ask`: what each becomes in the elicitation's `requestedSchema`, by protocol
 * revision, which answers fit, and the fields that cannot be asked (docs/asking-a-person.md, "Fields").
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { checkAnswer, parseAskFields, requestedSchema } from '../../src/tool/ask-fields.js';

const options = [
  { value: 'a', label: 'Alpha' },
  { value: 'b', label: 'Beta' },
];

describe('requestedSchema', () => {
  it('maps each kind of field, with titles, descriptions, defaults and required', () => {
    const fields = parseAskFields([
      {
        type: 'text-input',
        variable: 'name',
        label: 'Name',
        description: 'Your name',
        max_length: 20,
        required: true,
      },
      { paragraph: { variable: 'notes' } },
      { number: { variable: 'count', integer: true, default: 3 } },
      { number: { variable: 'score' } },
      { checkbox: { variable: 'ok', default: false } },
      { select: { variable: 'plain', options: ['x', 'y'] } },
    ]);
    expect(requestedSchema(fields, true)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 20, title: 'Name', description: 'Your name' },
        notes: { type: 'string' },
        count: { type: 'integer', default: 3 },
        score: { type: 'number' },
        ok: { type: 'boolean', default: false },
        plain: { type: 'string', enum: ['x', 'y'] },
      },
      required: ['name'],
    });
  });

  it('labelled options: a titled oneOf from 2025-11-25, enum and enumNames before or when asked', () => {
    const [titled] = parseAskFields([{ select: { variable: 's', options } }]);
    const [legacy] = parseAskFields([{ select: { variable: 's', options, legacy_enum_names: true } }]);
    const oneOf = [
      { const: 'a', title: 'Alpha' },
      { const: 'b', title: 'Beta' },
    ];
    const enumNames = { type: 'string', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] };
    expect(requestedSchema([titled!], true).properties).toEqual({ s: { type: 'string', oneOf } });
    expect(requestedSchema([titled!], false).properties).toEqual({ s: enumNames });
    expect(requestedSchema([legacy!], true).properties).toEqual({ s: enumNames });
  });

  it('multiple choices: an array of enum values, or of titled ones from 2025-11-25', () => {
    const [plain, titled] = parseAskFields([
      { select: { variable: 'p', options: ['x', 'y'], multiple: true, required: true } },
      { select: { variable: 't', options, multiple: true } },
    ]);
    expect(requestedSchema([plain!, titled!], true)).toEqual({
      type: 'object',
      properties: {
        p: { type: 'array', minItems: 1, items: { type: 'string', enum: ['x', 'y'] } },
        t: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'a', title: 'Alpha' },
              { const: 'b', title: 'Beta' },
            ],
          },
        },
      },
      required: ['p'],
    });
  });
});

describe('checkAnswer', () => {
  const fields = parseAskFields([
    { 'text-input': { variable: 'name', max_length: 3, required: true } },
    { number: { variable: 'count', integer: true } },
    { select: { variable: 'pick', options, multiple: true } },
    { checkbox: { variable: 'ok', default: true } },
  ]);

  it('takes an answer that fits, fills defaults and drops unknown keys', () => {
    expect(checkAnswer(fields, { name: 'Ana', count: 2, pick: ['a'], extra: 1 })).toEqual({
      ok: true,
      values: { name: 'Ana', count: 2, pick: ['a'], ok: true },
    });
  });

  it('names every problem of an answer that does not fit', () => {
    expect(checkAnswer(fields, { name: 'Anabel', count: 2.5, pick: ['c'], ok: 'yes' })).toEqual({
      ok: false,
      problems: [
        'name must be at most 3 characters',
        'count must be a whole number',
        'pick must be a list of a, b',
        'ok must be true or false',
      ],
    });
    expect(checkAnswer(fields, 'Ana')).toEqual({ ok: false, problems: ['the answer is not an object'] });
    expect(checkAnswer(fields, {})).toEqual({ ok: false, problems: ['name is required'] });
  });
});

describe('fields that cannot be asked', () => {
  it.each([
    [
      [{ file: { variable: 'f' } }],
      "run.ask: the field f is of type file, which a person cannot fill in a client's form; use text-input, paragraph, select, number or checkbox",
    ],
    [
      [{ type: 'json_object', variable: 'j' }],
      "run.ask: the field j is of type json_object, which a person cannot fill in a client's form; use text-input, paragraph, select, number or checkbox",
    ],
    [[], 'run.ask: fields must be a non-empty array of input form entries'],
    [[{ select: { variable: 's', options: [] } }], 'run.ask: the select field s has no options'],
    [
      [{ checkbox: { variable: 'x' } }, { checkbox: { variable: 'x' } }],
      'run.ask: the field x is named twice',
    ],
  ])('%j is a ConfigurationError', (fields, message) => {
    let error: unknown;
    try {
      parseAskFields(fields);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: 'invalid_fields', message });
  });
});
