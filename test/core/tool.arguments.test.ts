/**
 * docs/http-contract.md, "The tool": a call's arguments checked against the app's form and turned into the run's inputs,
 * by the tool layer directly (no HTTP). The problems are the exact texts a language model reads
 * after "Invalid arguments for tool <name>: ", joined with "; ".
 */
import { describe, expect, it } from 'vitest';
import { type ArgumentCheck, compileArgumentChecker } from '../../src/tool/arguments.js';
import type { AppMode, HostApp, InputVariable } from '../../src/types/index.js';
import { textStats } from '../helpers/apps.js';

const checkerFor = (inputForm: InputVariable[], mode: AppMode = 'workflow') =>
  compileArgumentChecker({ id: 'app', name: 'App', mode, inputForm });

const accepted = (inputs: Record<string, unknown>, query?: string): ArgumentCheck => ({
  ok: true,
  value: query === undefined ? { inputs } : { inputs, query },
});
const rejected = (...problems: string[]): ArgumentCheck => ({ ok: false, problems });

describe('required values', () => {
  const check = checkerFor([
    { type: 'text-input', variable: 'name', required: true },
    { type: 'number', variable: 'age', required: true },
    { type: 'checkbox', variable: 'agree', required: true },
    { type: 'json_object', variable: 'profile', required: true },
  ]);
  const complete = { name: 'Ada', age: 36, agree: true, profile: { city: 'London' } };

  it('all present: accepted as given', () => {
    expect(check(complete)).toEqual(accepted(complete));
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['an empty string', ''],
  ])('a required value that is %s fails, for every type', (_, value) => {
    const args = Object.fromEntries(['name', 'age', 'agree', 'profile'].map((key) => [key, value]));
    if (value === undefined) expect(check({})).toEqual(check(args));
    expect(check(args)).toEqual(
      rejected('name is required', 'age is required', 'agree is required', 'profile is required'),
    );
  });

  it('false and 0 are values, not missing ones', () => {
    expect(check({ ...complete, age: 0, agree: false })).toEqual(
      accepted({ ...complete, age: 0, agree: false }),
    );
  });
});

describe('types', () => {
  const check = checkerFor([
    { type: 'text-input', variable: 'title' },
    { type: 'paragraph', variable: 'body' },
    { type: 'select', variable: 'mood' },
    { type: 'number', variable: 'count' },
    { type: 'checkbox', variable: 'flag' },
    { type: 'json_object', variable: 'config' },
  ]);

  it('values of the right types pass unchanged', () => {
    const args = {
      title: 'T',
      body: 'B',
      mood: 'any text',
      count: -2.5,
      flag: false,
      config: { nested: [1] },
    };
    expect(check(args)).toEqual(accepted(args));
  });

  it.each([
    ['title', 5, 'title must be a string'],
    ['title', true, 'title must be a string'],
    ['body', ['a'], 'body must be a string'],
    ['mood', { a: 1 }, 'mood must be a string'],
    ['count', 'abc', 'count must be a number'],
    ['count', true, 'count must be a number'],
    ['count', [1], 'count must be a number'],
    ['count', '0x10', 'count must be a number'],
    ['count', 'Infinity', 'count must be a number'],
    ['count', '1,5', 'count must be a number'],
    ['flag', 1, 'flag must be true or false'],
    ['flag', 'yes', 'flag must be true or false'],
    ['flag', 'TRUE', 'flag must be true or false'],
    ['config', 'not an object', 'config must be a JSON object'],
    ['config', [1, 2], 'config must be a JSON object'],
    ['config', '{"a":1}', 'config must be a JSON object'],
    ['config', 42, 'config must be a JSON object'],
  ])('%s = %j fails: "%s"', (variable, value, problem) => {
    expect(check({ [variable]: value })).toEqual(rejected(problem));
  });
});

describe('the two unambiguous coercions, and nothing else', () => {
  const check = checkerFor([
    { type: 'number', variable: 'n' },
    { type: 'checkbox', variable: 'b' },
    { type: 'text-input', variable: 's' },
  ]);

  it.each([
    ['3', 3],
    ['-2.5', -2.5],
    [' 42 ', 42],
    ['1e3', 1000],
    ['.5', 0.5],
  ])('the numeric string %j becomes the number %j', (text, number) => {
    expect(check({ n: text })).toEqual(accepted({ n: number }));
  });

  it('"true" and "false" become booleans for a checkbox', () => {
    expect(check({ b: 'true' })).toEqual(accepted({ b: true }));
    expect(check({ b: 'false' })).toEqual(accepted({ b: false }));
  });

  it('a number is not turned into text: 5 for a text input fails', () => {
    expect(check({ s: 5 })).toEqual(rejected('s must be a string'));
  });

  it('a boolean is not turned into text either', () => {
    expect(check({ s: false })).toEqual(rejected('s must be a string'));
  });

  it('1 and 0 are not booleans', () => {
    expect(check({ b: 1 })).toEqual(rejected('b must be true or false'));
    expect(check({ b: 0 })).toEqual(rejected('b must be true or false'));
  });
});

describe('enum and maxLength', () => {
  const check = checkerFor([
    { type: 'select', variable: 'language', options: ['en', 'fr', 'de'] },
    { type: 'text-input', variable: 'code', max_length: 3 },
  ]);

  it('an option of the select passes', () => {
    expect(check({ language: 'fr' })).toEqual(accepted({ language: 'fr' }));
  });

  it('a value outside the options fails, naming them all', () => {
    expect(check({ language: 'es' })).toEqual(rejected('language must be one of en, fr, de'));
  });

  it('options compare exactly: "EN" is not "en"', () => {
    expect(check({ language: 'EN' })).toEqual(rejected('language must be one of en, fr, de'));
  });

  it('a select without options takes any text', () => {
    expect(checkerFor([{ type: 'select', variable: 'mood', options: [] }])({ mood: 'sunny' })).toEqual(
      accepted({ mood: 'sunny' }),
    );
  });

  it('a text at its maximum length passes, one more character fails', () => {
    expect(check({ code: 'abc' })).toEqual(accepted({ code: 'abc' }));
    expect(check({ code: 'abcd' })).toEqual(rejected('code must be at most 3 characters'));
  });

  it('maxLength counts code points, not UTF-16 units', () => {
    // Three emoji are six UTF-16 units and three code points.
    expect(check({ code: '🚀🚀🚀' })).toEqual(accepted({ code: '🚀🚀🚀' }));
    expect(check({ code: '🚀🚀🚀🚀' })).toEqual(rejected('code must be at most 3 characters'));
  });

  it('a paragraph has the same limit', () => {
    const paragraph = checkerFor([{ type: 'paragraph', variable: 'text', max_length: 5 }]);
    expect(paragraph({ text: 'hello!' })).toEqual(rejected('text must be at most 5 characters'));
  });
});

describe('json_object contents', () => {
  const check = checkerFor([
    {
      type: 'json_object',
      variable: 'trip',
      json_schema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
        additionalProperties: false,
      },
    },
  ]);

  it('an object that follows the json_schema passes unchanged', () => {
    expect(check({ trip: { city: 'Paris', days: 3 } })).toEqual(
      accepted({ trip: { city: 'Paris', days: 3 } }),
    );
  });

  it('a problem inside the object names the path to the bad value', () => {
    expect(check({ trip: { city: 7 } })).toEqual(
      rejected('trip.city: Invalid input: expected string, received number'),
    );
  });

  it('a missing required key is reported as required, with its path', () => {
    expect(check({ trip: { days: 2 } })).toEqual(rejected('trip.city is required'));
  });

  it('an integer that is not whole fails, naming the path', () => {
    expect(check({ trip: { city: 'Paris', days: 1.5 } })).toEqual(
      rejected('trip.days: Invalid input: expected int, received number'),
    );
  });

  it('an extra key forbidden by additionalProperties names the object and the key', () => {
    expect(check({ trip: { city: 'Paris', hotel: 'Ritz' } })).toEqual(
      rejected('trip: Unrecognized key: "hotel"'),
    );
  });

  it('every problem inside the object is reported at once', () => {
    expect(check({ trip: { days: 'two', hotel: 'Ritz' } })).toEqual(
      rejected(
        'trip.city is required',
        'trip.days: Invalid input: expected number, received string',
        'trip: Unrecognized key: "hotel"',
      ),
    );
  });

  it('without a json_schema any object passes, and its keys are kept', () => {
    const loose = checkerFor([{ type: 'json_object', variable: 'data' }]);
    expect(loose({ data: { anything: [1, { deep: true }] } })).toEqual(
      accepted({ data: { anything: [1, { deep: true }] } }),
    );
  });

  it('keys the json_schema does not list are kept when it allows them', () => {
    const open = checkerFor([
      { type: 'json_object', variable: 'data', json_schema: { properties: { a: { type: 'number' } } } },
    ]);
    expect(open({ data: { a: 1, b: 'kept' } })).toEqual(accepted({ data: { a: 1, b: 'kept' } }));
  });
});

describe('extra arguments, defaults and NUL characters', () => {
  it('unknown extra arguments are dropped silently', () => {
    const check = checkerFor([{ type: 'text-input', variable: 'name' }]);
    expect(check({ name: 'Ada', unexpected: 1, __proto__: { polluted: true } })).toEqual(
      accepted({ name: 'Ada' }),
    );
  });

  it('arguments for hidden file inputs are dropped too', () => {
    const check = checkerFor([
      { type: 'file', variable: 'upload', required: true, allowed_file_upload_methods: ['local_file'] },
      { type: 'text-input', variable: 'name' },
    ]);
    expect(check({ upload: 'https://example.com/a.pdf', name: 'Ada' })).toEqual(accepted({ name: 'Ada' }));
  });

  it('missing optional values take their default', () => {
    const check = checkerFor([
      { type: 'number', variable: 'top_n', default: 3 },
      { type: 'select', variable: 'language', options: ['en', 'fr'], default: 'en' },
      { type: 'checkbox', variable: 'verbose', default: false },
      { type: 'text-input', variable: 'note' },
    ]);
    expect(check({})).toEqual(accepted({ top_n: 3, language: 'en', verbose: false }));
  });

  it('a given value wins over the default', () => {
    const check = checkerFor([{ type: 'number', variable: 'top_n', default: 3 }]);
    expect(check({ top_n: 10 })).toEqual(accepted({ top_n: 10 }));
  });

  it('null for an optional value counts as not given, and so does "" for a non-text type', () => {
    const check = checkerFor([
      { type: 'number', variable: 'top_n', default: 3 },
      { type: 'checkbox', variable: 'verbose' },
      { type: 'text-input', variable: 'note', default: 'none' },
    ]);
    expect(check({ top_n: '', verbose: null, note: null })).toEqual(accepted({ top_n: 3, note: 'none' }));
  });

  it('an empty string is a value for an optional text', () => {
    const check = checkerFor([{ type: 'text-input', variable: 'note', default: 'none' }]);
    expect(check({ note: '' })).toEqual(accepted({ note: '' }));
  });

  it('NUL characters are stripped from strings', () => {
    const check = checkerFor(
      [
        { type: 'paragraph', variable: 'text' },
        { type: 'select', variable: 'language', options: ['en', 'fr'] },
      ],
      'chat',
    );
    expect(check({ query: 'hel\u0000lo', text: '\u0000a\u0000b\u0000', language: 'e\u0000n' })).toEqual(
      accepted({ text: 'ab', language: 'en' }, 'hello'),
    );
  });

  it('NUL characters are stripped from strings inside a JSON object too, keys and arrays included', () => {
    const check = checkerFor([{ type: 'json_object', variable: 'config' }]);
    const config = JSON.parse(
      '{"na\\u0000me":"a\\u0000b","tags":["x\\u0000"],"__proto__":{"s":"\\u0000"},"n":1}',
    );
    expect(check({ config })).toEqual(
      accepted({ config: JSON.parse('{"na\\u0000me":"ab","tags":["x"],"__proto__":{"s":""},"n":1}') }),
    );
  });

  it('maxLength is checked once NUL characters are gone', () => {
    const check = checkerFor([{ type: 'text-input', variable: 'code', max_length: 2 }]);
    expect(check({ code: 'a\u0000b' })).toEqual(accepted({ code: 'ab' }));
  });
});

describe('every problem at once, in words a model can act on', () => {
  const check = compileArgumentChecker(textStats);

  it('the example of the spec', () => {
    const result = check({ text: 'some text', top_n: 'many', language: 'es' });
    expect(result).toEqual(rejected('top_n must be a number', 'language must be one of en, fr, de'));
    expect(result.ok === false && result.problems.join('; ')).toBe(
      'top_n must be a number; language must be one of en, fr, de',
    );
  });

  it('problems follow the order of the form, required ones included', () => {
    expect(check({ top_n: [], language: 42 })).toEqual(
      rejected('text is required', 'top_n must be a number', 'language must be a string'),
    );
  });

  it("a chat app's missing query is reported with the form's problems", () => {
    const chat = checkerFor(
      [{ type: 'select', variable: 'tier', options: ['free', 'pro'], required: true }],
      'chat',
    );
    expect(chat({ tier: 'gold' })).toEqual(rejected('query is required', 'tier must be one of free, pro'));
    expect(chat({ query: 7, tier: 'pro' })).toEqual(rejected('query must be a string'));
    expect(chat({ query: '', tier: 'pro' })).toEqual(rejected('query is required'));
  });
});

describe('what the run receives', () => {
  const form: InputVariable[] = [
    { type: 'text-input', variable: 'name', required: true },
    { type: 'number', variable: 'count', default: 1 },
  ];

  it('workflow: inputs are the arguments, and there is no query', () => {
    expect(checkerFor(form, 'workflow')({ name: 'Ada', count: '2' })).toEqual({
      ok: true,
      value: { inputs: { name: 'Ada', count: 2 } },
    });
  });

  it('completion: inputs are the arguments, and the query is ""', () => {
    expect(checkerFor(form, 'completion')({ name: 'Ada' })).toEqual({
      ok: true,
      value: { inputs: { name: 'Ada', count: 1 }, query: '' },
    });
  });

  it('completion: an argument named query is an extra one when the form has no such variable', () => {
    expect(checkerFor(form, 'completion')({ name: 'Ada', query: 'ignored' })).toEqual({
      ok: true,
      value: { inputs: { name: 'Ada', count: 1 }, query: '' },
    });
  });

  it.each<AppMode>(['chat', 'advanced-chat', 'agent-chat'])(
    '%s: the query is apart, inputs are the rest',
    (mode) => {
      expect(checkerFor(form, mode)({ query: 'What is new?', name: 'Ada', extra: true })).toEqual({
        ok: true,
        value: { inputs: { name: 'Ada', count: 1 }, query: 'What is new?' },
      });
    },
  );

  it('the caller’s arguments object is never changed', () => {
    const args = { query: 'q\u0000', name: 'Ada', count: '2', extra: 1 };
    const before = structuredClone(args);
    checkerFor(form, 'chat')(args);
    expect(args).toEqual(before);
  });

  it('a form variable may be named like an Object member', () => {
    const check = checkerFor([{ type: 'text-input', variable: '__proto__' }]);
    const result = check(JSON.parse('{"__proto__":"kept"}') as Record<string, unknown>);
    expect(result.ok && Object.getOwnPropertyDescriptor(result.value.inputs, '__proto__')?.value).toBe(
      'kept',
    );
    expect(result.ok && Object.getPrototypeOf(result.value.inputs)).toBe(Object.prototype);
  });

  it('a checker serves any number of calls independently', () => {
    const check = compileArgumentChecker({ ...textStats } as HostApp);
    expect(check({ text: 'a' })).toEqual(accepted({ text: 'a', top_n: 3 }));
    expect(check({ text: 'b', top_n: 1 })).toEqual(accepted({ text: 'b', top_n: 1 }));
    expect(check({ text: 'c' })).toEqual(accepted({ text: 'c', top_n: 3 }));
  });
});
