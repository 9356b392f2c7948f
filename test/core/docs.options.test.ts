/**
 * docs/options.md lists every option of every factory: each factory's section (a `### \`factory(…)\``
 * heading) has one table row per option its schema accepts, and none for an option it does not.
 * The names are read from the schemas themselves, so an option added to a schema fails here until
 * its row is written. A new factory: add it to FACTORIES, with its section in the page.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { langGraphOptionsSchema } from '../../src/adapters/langgraph-options.js';
import { OptionsSchema as JwtVerifierOptionsSchema } from '../../src/auth/jwt-verifier.js';
import { connectOptionsSchema } from '../../src/client/options.js';
import { ConsoleOptionsSchema } from '../../src/console/console-options.js';
import { Settings as PageSettingsSchema } from '../../src/console/page/page-options.js';
import { TOOL_PROVIDER_OPTIONS } from '../../src/console/providers/connect.js';
import { OptionsSchema as ToolProviderConsoleOptionsSchema } from '../../src/console/providers/console-options.js';
import { DrainOptionsSchema } from '../../src/endpoint/drain.js';
import { McpServerOptionsSchema } from '../../src/endpoint/mcp-server-options.js';
import { METRICS_OPTIONS } from '../../src/metrics/option-names.js';
import { optionsSchema as ToolProviderStoreOptionsSchema } from '../../src/store/providers/knex-store.js';
import {
  migrateOptionsSchema,
  resolverOptionsSchema,
  rollbackOptionsSchema,
  storeOptionsSchema,
} from '../../src/store/store-options.js';
import { optionNamesAt } from '../../src/util/did-you-mean.js';

const PAGE = 'docs/options.md';

interface Factory {
  /** The section's heading, without the `###` and the backquotes. */
  heading: string;
  /** Where the options are defined, for the failure message. */
  source: string;
  /** Every option it accepts; a nested one as `parent.child`. */
  options: readonly string[];
}

const names = (schema: z.ZodType, nested: readonly string[] = []) => [
  ...optionNamesAt(schema, []),
  ...nested.flatMap((parent) => optionNamesAt(schema, [parent]).map((child) => `${parent}.${child}`)),
];

const FACTORIES: Factory[] = [
  {
    heading: 'mcpServer(options)',
    source: 'src/endpoint/mcp-server-options.ts',
    options: names(McpServerOptionsSchema, ['auth', 'rateLimit']),
  },
  { heading: 'router.drain(options)', source: 'src/endpoint/drain.ts', options: names(DrainOptionsSchema) },
  {
    heading: 'knexServerStore(knex, options)',
    source: 'src/store/store-options.ts',
    options: names(storeOptionsSchema),
  },
  {
    heading: 'store.resolver(loadApp, options)',
    source: 'src/store/store-options.ts',
    options: names(resolverOptionsSchema),
  },
  {
    heading: 'migrate(knex, options)',
    source: 'src/store/store-options.ts',
    options: names(migrateOptionsSchema),
  },
  {
    heading: 'rollback(knex, options)',
    source: 'src/store/store-options.ts',
    options: names(rollbackOptionsSchema),
  },
  {
    heading: 'mcpConsole(options)',
    source: 'src/console/console-options.ts',
    options: [...names(ConsoleOptionsSchema), ...names(PageSettingsSchema).map((name) => `page.${name}`)],
  },
  {
    heading: 'knexToolProviderStore(knex, options)',
    source: 'src/store/providers/knex-store.ts',
    options: names(ToolProviderStoreOptionsSchema),
  },
  {
    heading: 'mcpToolProviderConsole(options)',
    source: 'src/console/providers/console-options.ts',
    options: names(ToolProviderConsoleOptionsSchema),
  },
  {
    heading: 'connectMcpServer(url, options)',
    source: 'src/client/options.ts',
    options: names(connectOptionsSchema),
  },
  {
    heading: 'connectToolProvider(provider, options)',
    source: 'src/console/providers/connect.ts',
    options: TOOL_PROVIDER_OPTIONS,
  },
  {
    heading: 'jwtVerifier(options)',
    source: 'src/auth/jwt-verifier.ts',
    options: names(JwtVerifierOptionsSchema),
  },
  { heading: 'mcpMetrics(options)', source: 'src/metrics/option-names.ts', options: METRICS_OPTIONS },
  {
    heading: 'fromLangGraph(graph, options)',
    source: 'src/adapters/langgraph-options.ts',
    options: names(langGraphOptionsSchema),
  },
];

/** The options a section's tables name: the backquoted names of each row's first cell, without `(…)`. */
function documentedOptions(page: string, heading: string): string[] | undefined {
  const lines = page.split('\n');
  const start = lines.findIndex((line) => line.trim() === `### \`${heading}\``);
  if (start === -1) return undefined;
  const documented: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,3} /.test(line)) break;
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (firstCell === undefined || /^[\s-]*$/.test(firstCell) || firstCell.trim() === 'option') continue;
    for (const [, name] of firstCell.matchAll(/`([^`]+)`/g))
      documented.push(name!.replace(/\(.*$/, '').trim());
  }
  return documented;
}

/** What is wrong with the page for one factory, each problem a sentence naming the option and the file. */
function problemsOf(page: string, factory: Factory): string[] {
  const documented = documentedOptions(page, factory.heading);
  if (documented === undefined) {
    return [`${PAGE} has no section "### \`${factory.heading}\`" for the options of ${factory.source}`];
  }
  const missing = factory.options
    .filter((name) => !documented.includes(name))
    .map(
      (name) =>
        `${PAGE} misses the option "${name}" of ${factory.heading} (${factory.source}): ` +
        `add a row "| \`${name}\` | <default> | <meaning> |" under "### \`${factory.heading}\`"`,
    );
  const unknown = documented
    .filter((name) => !factory.options.includes(name))
    .map(
      (name) =>
        `${PAGE} lists "${name}" under "### \`${factory.heading}\`", which ${factory.source} does not accept`,
    );
  return [...missing, ...unknown];
}

describe(PAGE, () => {
  const page = readFileSync(new URL(`../../${PAGE}`, import.meta.url), 'utf8');

  it('lists every option of every factory, and no option a factory does not take', () => {
    for (const factory of FACTORIES) expect(factory.options.length, factory.heading).toBeGreaterThan(0);
    expect(FACTORIES.flatMap((factory) => problemsOf(page, factory))).toEqual([]);
  });

  it('names the missing option and the file, when a row is left out', () => {
    const mcpServer = FACTORIES[0]!;
    const without = page.replace(/^\| `signingSecret` .*\n/m, '');
    expect(without).not.toBe(page);
    expect(problemsOf(without, mcpServer)).toEqual([
      'docs/options.md misses the option "signingSecret" of mcpServer(options) (src/endpoint/mcp-server-options.ts): ' +
        'add a row "| `signingSecret` | <default> | <meaning> |" under "### `mcpServer(options)`"',
    ]);
    expect(problemsOf(page, { ...mcpServer, options: [...mcpServer.options, 'newOption'] })).toEqual([
      expect.stringContaining('misses the option "newOption" of mcpServer(options)'),
    ]);
    expect(problemsOf(page, { ...mcpServer, heading: 'mcpNothing(options)' })).toEqual([
      'docs/options.md has no section "### `mcpNothing(options)`" for the options of src/endpoint/mcp-server-options.ts',
    ]);
  });
});
