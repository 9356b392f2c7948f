import type { Request, Response, Router } from 'express';
import { ConsoleError } from '../errors.js';
import { methodNotAllowed, writeConsoleError } from '../reply.js';
import { etagOf, type PageFile, pageFiles } from './files.js';
import type { PageSettings } from './page-options.js';

/**
 * The page's own policy: its scripts and styles come from its own files only (no inline script or
 * style), it talks to its own origin only, and no other site may frame it. Images and audio in a
 * tool's result arrive inline, as `data:` URLs.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the console page (docs/console.md, "The console page"): the HTML at the console's root and
 * its style sheet and scripts under `page/`, each with the page's Content-Security-Policy. They hold
 * no data and need no authorization; everything they show comes from the console API, which does.
 */
export function servePage(router: Router, settings: PageSettings, onError: (error: unknown) => void): void {
  let html: PageFile | undefined;

  const fail = (res: Response, error: unknown) => {
    onError(error);
    writeConsoleError(res, new ConsoleError('internal', 'Internal error'));
  };

  router
    .route('/')
    .get((req, res) => {
      const path = req.originalUrl.split('?')[0] ?? '';
      // The page's files and the API are addressed relative to it: it must be read from `<root>/`.
      if (!path.endsWith('/')) {
        const query = req.originalUrl.slice(path.length);
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(308, `${path.slice(path.lastIndexOf('/') + 1)}/${query}`);
        return;
      }
      pageFiles().then(
        (files) => {
          html ??= htmlFile(files.template, settings);
          send(req, res, html);
        },
        (error: unknown) => fail(res, error),
      );
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/page/:file')
    .get((req, res) => {
      pageFiles().then(
        (files) => {
          const file = files.assets.get(req.params.file as string);
          if (file) send(req, res, file);
          else writeConsoleError(res, new ConsoleError('not_found', 'not found'));
        },
        (error: unknown) => fail(res, error),
      );
    })
    .all(methodNotAllowed('GET'));
}

function htmlFile(template: string, settings: PageSettings): PageFile {
  const values: Record<string, string> = {
    title: settings.title,
    toolProviders: settings.toolProviders ?? '',
    signInUrl: settings.signInUrl ?? '',
  };
  const body = Buffer.from(
    template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => escapeHtml(values[name] ?? '')),
  );
  return { body, contentType: 'text/html; charset=utf-8', etag: etagOf(body) };
}

/** Writes a file with the page's headers; a request that holds its current version gets a 304. */
function send(req: Request, res: Response, file: PageFile): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  // Revalidated on every load, so a new version of the package is picked up at once.
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', file.etag);
  const held = req.headers['if-none-match'];
  if (held?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Length', file.body.length);
  res.end(req.method === 'HEAD' ? undefined : file.body);
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
