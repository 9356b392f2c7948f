import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/** A file of the page, as it is served. */
export interface PageFile {
  body: Buffer;
  contentType: string;
  /** A strong validator: the content's hash. */
  etag: string;
}

/** The page's own files: the HTML template, and the style sheet and scripts served under `page/`. */
export interface PageFiles {
  template: string;
  assets: ReadonlyMap<string, PageFile>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

// The files ship beside this module: in `src/` as written, and in `dist/` copied there by the build
// (whose CommonJS bundle reads them from the ES module build's folder).
const FOLDER = new URL('./assets/', import.meta.url);

let loading: Promise<PageFiles> | undefined;

/** Reads the page's files once, on first use; a failure is tried again on the next request. */
export function pageFiles(): Promise<PageFiles> {
  loading ??= readPageFiles().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function readPageFiles(): Promise<PageFiles> {
  const assets = new Map<string, PageFile>();
  for (const name of (await readdir(FOLDER)).sort()) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type === undefined) continue;
    const body = await readFile(new URL(name, FOLDER));
    assets.set(name, { body, contentType: type, etag: etagOf(body) });
  }
  return { template: await readFile(new URL('index.html', FOLDER), 'utf8'), assets };
}

export function etagOf(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}
