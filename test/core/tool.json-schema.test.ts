/**
 * docs/http-contract.md, "The tool": every schema the tool layer generates is valid JSON Schema 2020-12, checked
 * with a real validator (ajv's 2020 build, strict mode), and it agrees with the package's own
 * checks: a value the argument checker accepts, the input schema accepts; a value the checker
 * rejects, the schema rejects. Likewise for declared outputs and the output check.
 *
 * The documented exceptions, where the checker is deliberately more forgiving or stricter than
 * what JSON Schema can say with the keywords the tool's input schema uses:
 * - `coercion`: a numeric string for a `number`, "true"/"false" for a `checkbox`;
 * - `not given`: `null` for an optional value, and `""` for an optional non-text value, count as
 *   "not given" and take the default;
 * - `required`: `""` for a required text counts as missing, which `required` alone
 *   does not express.
 */
import { describe, expect, it } from 'vitest';
import { compileArgumentChecker } from '../../src/tool/arguments.js';
import { buildInputSchema } from '../../src/tool/input-schema.js';
import { buildOutputSchema, compileOutputCheck } from '../../src/tool/outputs.js';
import type { AppMode, DeclaredOutput, HostApp, InputVariable } from '../../src/types/index.js';
import { demoApps } from '../helpers/apps.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';

const ajv = jsonSchemaValidator();

type Exception = 'coercion' | 'not given' | 'required';

interface Case {
  /** The argument's value; `undefined` leaves the argument out. */
  value: unknown;
  /** What the argument checker says. */
  checker: 'accepts' | 'rejects';
  /** Set when the schema deliberately disagrees with the checker (see the top of this file). */
  exception?: Exception;
}

const accepts = (value: unknown, exception?: Exception): Case => ({ value, checker: 'accepts', exception });
const rejects = (value: unknown, exception?: Exception): Case => ({ value, checker: 'rejects', exception });

interface FormCase {
  name: string;
  input: InputVariable;
  cases: Case[];
}

const forms: FormCase[] = [
  {
    name: 'optional text-input with max_length 5',
    input: { type: 'text-input', variable: 'v', max_length: 5 },
    cases: [
      accepts(undefined),
      accepts('abc'),
      accepts(''),
      accepts('abcde'),
      accepts('🚀🚀🚀🚀🚀'),
      rejects('abcdef'),
      rejects('🚀🚀🚀🚀🚀🚀'),
      rejects(5),
      rejects(true),
      rejects(['a']),
      rejects({}),
      accepts(null, 'not given'),
    ],
  },
  {
    name: 'required paragraph',
    input: { type: 'paragraph', variable: 'v', required: true },
    cases: [
      accepts('a long text\nwith lines'),
      rejects(undefined),
      rejects(7),
      rejects(null),
      rejects('', 'required'),
    ],
  },
  {
    name: 'optional select with options',
    input: { type: 'select', variable: 'v', options: ['en', 'fr', 'de'] },
    cases: [
      accepts(undefined),
      accepts('en'),
      accepts('de'),
      rejects('es'),
      rejects('EN'),
      rejects(''),
      rejects(1),
      accepts(null, 'not given'),
    ],
  },
  {
    name: 'required select with options',
    input: { type: 'select', variable: 'v', options: ['free', 'pro'], required: true },
    cases: [accepts('pro'), rejects(undefined), rejects('gold'), rejects(null), rejects('')],
  },
  {
    name: 'select without options',
    input: { type: 'select', variable: 'v', options: [] },
    cases: [accepts('anything at all'), accepts(''), rejects(1), rejects(false)],
  },
  {
    name: 'optional number',
    input: { type: 'number', variable: 'v', default: 3 },
    cases: [
      accepts(undefined),
      accepts(0),
      accepts(3),
      accepts(-2.5),
      accepts(1e21),
      rejects('abc'),
      rejects(true),
      rejects([1]),
      rejects({}),
      accepts('3', 'coercion'),
      accepts('-2.5', 'coercion'),
      accepts(null, 'not given'),
      accepts('', 'not given'),
    ],
  },
  {
    name: 'required number',
    input: { type: 'number', variable: 'v', required: true },
    cases: [accepts(1), rejects(undefined), rejects(null), rejects(''), rejects('one')],
  },
  {
    name: 'optional checkbox',
    input: { type: 'checkbox', variable: 'v' },
    cases: [
      accepts(undefined),
      accepts(true),
      accepts(false),
      rejects(1),
      rejects(0),
      rejects('yes'),
      accepts('true', 'coercion'),
      accepts('false', 'coercion'),
      accepts(null, 'not given'),
      accepts('', 'not given'),
    ],
  },
  {
    name: 'json_object without json_schema',
    input: { type: 'json_object', variable: 'v' },
    cases: [
      accepts(undefined),
      accepts({}),
      accepts({ any: [1, { deep: null }] }),
      rejects([]),
      rejects('{}'),
      rejects(1),
      accepts(null, 'not given'),
    ],
  },
  {
    name: 'required json_object with json_schema',
    input: {
      type: 'json_object',
      variable: 'v',
      required: true,
      json_schema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
        required: ['city'],
        additionalProperties: false,
      },
    },
    cases: [
      accepts({ city: 'Paris' }),
      accepts({ city: 'Paris', days: 3 }),
      rejects(undefined),
      rejects({}),
      rejects({ days: 3 }),
      rejects({ city: 1 }),
      rejects({ city: 'Paris', days: 1.5 }),
      rejects({ city: 'Paris', days: 0 }),
      rejects({ city: 'Paris', hotel: 'Ritz' }),
      rejects([{ city: 'Paris' }]),
    ],
  },
];

const appWith = (inputForm: InputVariable[], mode: AppMode = 'workflow'): HostApp => ({
  id: 'app',
  name: 'App',
  mode,
  inputForm,
});

const describeCase = ({ value, checker, exception }: Case) =>
  `${value === undefined ? 'no value' : JSON.stringify(value)}: the checker ${checker}${exception ? ` (${exception}: the schema rejects)` : ''}`;

describe.each(forms)('the input schema of a $name agrees with the checker', ({ input, cases }) => {
  const app = appWith([input]);
  const schema = buildInputSchema(app, {});
  const check = compileArgumentChecker(app);

  it('is valid JSON Schema 2020-12 and compiles in strict mode', () => {
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it.each(cases.map((c) => [describeCase(c), c] as const))('%s', (_, testCase) => {
    const validate = ajv.compile(schema);
    const args = testCase.value === undefined ? {} : { v: testCase.value };
    expect(check(args).ok).toBe(testCase.checker === 'accepts');
    // The exceptions are the cases where the schema says the opposite of the checker.
    const schemaAccepts = testCase.exception
      ? testCase.checker === 'rejects'
      : testCase.checker === 'accepts';
    expect(validate(args)).toBe(schemaAccepts);
  });
});

describe('whole input schemas agree with the checker', () => {
  it.each<AppMode>(['chat', 'advanced-chat', 'agent-chat'])("a %s app's query", (mode) => {
    const app = appWith([{ type: 'number', variable: 'n' }], mode);
    const validate = ajv.compile(buildInputSchema(app, {}));
    const check = compileArgumentChecker(app);
    for (const [args, ok] of [
      [{ query: 'hello' }, true],
      [{ query: 'hello', n: 2 }, true],
      [{}, false],
      [{ n: 2 }, false],
      [{ query: 5 }, false],
      [{ query: ['hello'] }, false],
    ] as const) {
      expect([args, check(args).ok]).toEqual([args, ok]);
      expect([args, validate(args)]).toEqual([args, ok]);
    }
  });

  it('extra arguments and values for hidden file inputs pass both (the checker drops them)', () => {
    const app = appWith([
      { type: 'file', variable: 'upload', required: true, allowed_file_upload_methods: ['local_file'] },
      { type: 'file-list', variable: 'uploads', allowed_file_upload_methods: ['local_file'] },
      { type: 'external_data_tool', variable: 'lookup' },
      { type: 'text-input', variable: 'name' },
    ]);
    const validate = ajv.compile(buildInputSchema(app, {}));
    const args = { upload: 'https://example.com/a.pdf', uploads: [], lookup: 1, name: 'Ada', extra: true };
    expect(compileArgumentChecker(app)(args)).toEqual({ ok: true, value: { inputs: { name: 'Ada' } } });
    expect(validate(args)).toBe(true);
  });

  it('a form with every type, descriptions and defaults compiles, and its defaults pass it', () => {
    const app = appWith(
      [
        { type: 'text-input', variable: 'a', label: 'A', max_length: 10, default: 'x' },
        { type: 'paragraph', variable: 'b', description: 'B', required: true },
        { type: 'select', variable: 'c', options: ['1', '2'], default: '2' },
        { type: 'number', variable: 'd', default: 3 },
        { type: 'checkbox', variable: 'e', default: true },
        { type: 'json_object', variable: 'f', json_schema: { properties: { g: { type: 'string' } } } },
        { type: 'file', variable: 'h' },
      ],
      'chat',
    );
    const schema = buildInputSchema(app, { a: 'From the server' });
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
    const validate = ajv.compile(schema);
    const checked = compileArgumentChecker(app)({ query: 'q', b: 'text' });
    expect(checked).toEqual({
      ok: true,
      value: { query: 'q', inputs: { a: 'x', b: 'text', c: '2', d: 3, e: true } },
    });
    expect(checked.ok && validate({ query: 'q', ...checked.value.inputs })).toBe(true);
  });

  it.each(demoApps.map((app) => [app.name, app] as const))(
    'the sample app %s: input and output schemas compile',
    (_, app) => {
      const input = buildInputSchema(app, {});
      const output = buildOutputSchema(app);
      expect(ajv.validateSchema(input), ajv.errorsText(ajv.errors)).toBe(true);
      expect(ajv.validateSchema(output), ajv.errorsText(ajv.errors)).toBe(true);
      expect(() => ajv.compile(input)).not.toThrow();
      expect(() => ajv.compile(output)).not.toThrow();
    },
  );
});

describe('output schemas agree with the output check', () => {
  const declared: DeclaredOutput[] = [
    { variable: 'count', type: 'number', description: 'How many' },
    { variable: 'label', type: 'string' },
    { variable: 'ok', type: 'boolean' },
    { variable: 'meta', type: 'object' },
    { variable: 'items', type: 'array' },
  ];
  const app: HostApp = { ...appWith([]), outputs: declared };
  const schema = buildOutputSchema(app);
  const checkOutputs = compileOutputCheck(app)!;
  const good = { count: 1, label: 'x', ok: false, meta: {}, items: [] };

  it('is valid JSON Schema 2020-12', () => {
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['matching outputs', good, true],
    ['matching outputs with extra keys', { ...good, extra: 1 }, true],
    ['a missing output', { count: 1, label: 'x', ok: false, meta: {} }, false],
    ['a string for a number', { ...good, count: '1' }, false],
    ['a number for a string', { ...good, label: 1 }, false],
    ['a string for a boolean', { ...good, ok: 'false' }, false],
    ['an array for an object', { ...good, meta: [] }, false],
    ['null for an object', { ...good, meta: null }, false],
    ['an object for an array', { ...good, items: {} }, false],
    ['nothing at all', {}, false],
  ])('%s', (_, outputs, ok) => {
    expect(checkOutputs(outputs).length === 0).toBe(ok);
    expect(ajv.validate(schema, outputs)).toBe(ok);
  });

  it('a workflow without declared outputs: any object', () => {
    const plain = buildOutputSchema(appWith([]));
    expect(ajv.validateSchema(plain)).toBe(true);
    expect(ajv.validate(plain, { anything: 1 })).toBe(true);
    expect(compileOutputCheck(appWith([]))).toBeNull();
  });

  it.each<AppMode>(['chat', 'advanced-chat', 'agent-chat', 'completion'])(
    'a %s app: the {answer} it returns passes its schema',
    (mode) => {
      const answer = buildOutputSchema(appWith([], mode));
      expect(ajv.validateSchema(answer)).toBe(true);
      expect(ajv.validate(answer, { answer: 'hi' })).toBe(true);
      expect(ajv.validate(answer, { answer: '' })).toBe(true);
      expect(ajv.validate(answer, {})).toBe(false);
      expect(ajv.validate(answer, { answer: 1 })).toBe(false);
    },
  );

  it('an output declared twice is required once', () => {
    const twice = buildOutputSchema({
      ...app,
      outputs: [...declared, { variable: 'count', type: 'string' }],
    });
    expect(twice.required).toEqual(['count', 'label', 'ok', 'meta', 'items']);
    expect(ajv.validateSchema(twice)).toBe(true);
  });
});
