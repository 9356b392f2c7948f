/**
 * docs/http-contract.md, "The tool": the tool's name, title and description, as `tools/list` shows them, computed by the
 * tool layer directly (no HTTP).
 */
import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN, toToolName } from '../../src/tool/name.js';
import { createToolCache, type ToolNamer } from '../../src/tool/tool.js';
import type { HostApp, ServerRecord } from '../../src/types/index.js';
import { featuresOf } from '../../src/versions.js';
import { serverRecordFor } from '../helpers/apps.js';

const app = (overrides: Partial<HostApp> = {}): HostApp => ({
  id: 'app-1',
  name: 'Customer Support Bot!',
  mode: 'workflow',
  inputForm: [],
  ...overrides,
});

/** The `tools/list` entry of the app's server at a protocol version. */
function listed(
  host: HostApp,
  {
    server = {},
    toolName,
    version = '2025-11-25',
  }: { server?: Partial<ServerRecord>; toolName?: ToolNamer; version?: string } = {},
) {
  return createToolCache(toolName)(host, serverRecordFor(host, server)).describe(featuresOf(version));
}

describe('the tool name', () => {
  it.each([
    ['Customer Support Bot!', 'Customer_Support_Bot'],
    ['text-stats', 'text-stats'],
    ['v1.2 release_notes', 'v1.2_release_notes'],
    ['  Lots   of   spaces  ', 'Lots_of_spaces'],
    ['a / b \\ c', 'a_b_c'],
    ['Café Crème', 'Caf_Cr_me'],
    ['日本語のアプリ', 'app'],
    ['Übersetzer 🚀 Pro', 'bersetzer_Pro'],
    ['__already__underscored__', 'already__underscored'],
    ['', 'app'],
    ['!!!', 'app'],
  ])('the app "%s" becomes the tool "%s"', (appName, toolName) => {
    expect(toToolName(appName)).toBe(toolName);
    expect(toolName).toMatch(TOOL_NAME_PATTERN);
  });

  it('a name longer than 128 characters is cut to 128', () => {
    const name = toToolName('x'.repeat(300));
    expect(name).toBe('x'.repeat(128));
  });

  it('a long name with invalid characters is replaced first, then cut to 128 valid characters', () => {
    const name = toToolName(`${'ab '.repeat(60)}end`);
    expect(name).toHaveLength(128);
    expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(name).toBe(`${'ab_'.repeat(60)}end`.slice(0, 128));
  });

  it('a cut that lands on a replaced character does not leave a trailing underscore', () => {
    expect(toToolName(`${'x'.repeat(127)} y`)).toBe('x'.repeat(127));
  });

  it('tools/list shows the name derived from the app name', () => {
    expect(listed(app()).name).toBe('Customer_Support_Bot');
  });

  it('a toolName(app) override names the tool, and receives the app', () => {
    const seen: HostApp[] = [];
    const host = app();
    const tool = listed(host, {
      toolName: (named) => {
        seen.push(named);
        return `support.${named.id}`;
      },
    });
    expect(tool.name).toBe('support.app-1');
    expect(seen).toEqual([host]);
  });

  it('an override that is not a valid tool name is made valid the same way', () => {
    expect(listed(app(), { toolName: () => 'Mein Werkzeug!' }).name).toBe('Mein_Werkzeug');
    expect(listed(app(), { toolName: () => '' }).name).toBe('app');
  });
});

describe('the tool title', () => {
  it('is the app name verbatim from 2025-06-18', () => {
    for (const version of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      expect(listed(app({ name: 'Customer Support Bot! 🚀' }), { version }).title).toBe(
        'Customer Support Bot! 🚀',
      );
    }
  });

  it('is not shown before 2025-06-18', () => {
    for (const version of ['2024-11-05', '2025-03-26']) {
      expect(Object.keys(listed(app(), { version }))).toEqual(['name', 'description', 'inputSchema']);
    }
  });
});

describe('the tool description', () => {
  it("is the server's description when it has one", () => {
    const tool = listed(app({ description: 'The app describes itself' }), {
      server: { description: 'The server describes the tool' },
    });
    expect(tool.description).toBe('The server describes the tool');
  });

  it("is the app's description when the server has none", () => {
    const tool = listed(app({ description: 'The app describes itself' }), { server: { description: '' } });
    expect(tool.description).toBe('The app describes itself');
  });

  it('is an empty string when neither has one', () => {
    expect(listed(app(), { server: { description: '' } }).description).toBe('');
  });

  it('follows an edited server description once the server is updated', () => {
    const cache = createToolCache();
    const host = app();
    const before = serverRecordFor(host, { description: 'first' });
    const after = { ...before, description: 'second', updatedAt: new Date('2025-02-01T00:00:00Z') };
    const features = featuresOf('2025-11-25');
    expect(cache(host, before).describe(features).description).toBe('first');
    expect(cache(host, after).describe(features).description).toBe('second');
  });
});
