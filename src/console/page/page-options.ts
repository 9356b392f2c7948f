import { z } from 'zod';

/** Settings of the console page (`mcpConsole({ page: { … } })`); `page: true` takes every default. */
export interface ConsolePageOptions {
  /** The page's title and heading. Default: `'MCP servers'`. */
  title?: string;
  /**
   * Where `mcpToolProviderConsole` is mounted, as a path relative to the console's root
   * (`'tool-providers'`) or from the origin's root (`'/admin/tool-providers'`); the page then shows
   * the tool providers too. Default: none (no tool provider section).
   */
  toolProviders?: string;
  /**
   * Where a person signs in when the console answers 401, for hosts whose `authorize` reads a
   * session cookie: the page links there. Default: none, and the page asks for a bearer token
   * instead, keeps it for the tab (`sessionStorage`) and sends it as `Authorization: Bearer …`.
   */
  signInUrl?: string;
}

/** The page settings once parsed: `null` when there is no page. */
export interface PageSettings {
  title: string;
  toolProviders: string | null;
  signInUrl: string | null;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

// The page's Content-Security-Policy lets it call its own origin only.
const samePath = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .refine(
    (path) => !SCHEME.test(path) && !path.startsWith('//') && !path.includes('\\'),
    'must be a path on this origin, such as "tool-providers" or "/admin/tool-providers"',
  );

// A link, never a script: only http(s) URLs and paths.
const link = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .refine(
    (url) => (SCHEME.test(url) ? /^https?:\/\//i.test(url) && URL.canParse(url) : !url.startsWith('//')),
    'must be a path or an http(s) URL',
  );

/** The settings `page` accepts (docs/options.md lists them). */
export const Settings = z.strictObject({
  title: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100).optional(),
  toolProviders: samePath.optional(),
  signInUrl: link.optional(),
});

/** `page`: `true`, `false`, or the page's settings; parsed to the settings, or `null` for no page. */
export const PageOption = z
  .union([z.boolean(), Settings], { error: 'must be true, false or { title?, toolProviders?, signInUrl? }' })
  .default(false)
  .transform((page): PageSettings | null => {
    if (page === false) return null;
    const settings = page === true ? {} : page;
    return {
      title: settings.title ?? 'MCP servers',
      toolProviders: settings.toolProviders ?? null,
      signInUrl: settings.signInUrl ?? null,
    };
  });
