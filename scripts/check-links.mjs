#!/usr/bin/env node
/**
 * Checks every relative link of the documentation: README.md, bench/README.md and docs/*.md. A link
 * to a file must name one that exists; a link with `#anchor` to a Markdown file (or to the same
 * file) must name one of its headings, as GitHub makes their anchors. Links in code blocks and code
 * spans are not links; absolute URLs (https:, mailto:) are not checked.
 *
 *   node scripts/check-links.mjs     prints each broken link, and exits 1 if there is one
 *
 * Tests import `checkLinks(root)`.
 */
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The documents whose links are checked, relative to `root`. */
export async function documents(root) {
  const docs = await readdir(join(root, 'docs')).catch(() => []);
  return [
    'README.md',
    'bench/README.md',
    ...docs
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ].filter((file) => existsSync(join(root, file)));
}

/** Every broken relative link of the documents, as `file:line: target (reason)`. */
export async function checkLinks(root = ROOT) {
  const problems = [];
  const anchorsOf = new Map();
  const anchors = async (file) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(await readFile(file, 'utf8')));
    return anchorsOf.get(file);
  };
  for (const document of await documents(root)) {
    const path = join(root, document);
    const text = await readFile(path, 'utf8');
    for (const { target, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [pathPart, anchor] = splitAnchor(target);
      const file = pathPart === '' ? path : resolve(dirname(path), decodeURIComponent(pathPart));
      const where = `${document}:${line}: ${target}`;
      if (!existsSync(file)) {
        problems.push(`${where} (no such file: ${relative(root, file)})`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith('.md') || statSync(file).isDirectory()) continue;
      if (!(await anchors(file)).has(decodeURIComponent(anchor).toLowerCase())) {
        problems.push(`${where} (no heading with the anchor #${anchor} in ${relative(root, file)})`);
      }
    }
  }
  return problems;
}

function splitAnchor(target) {
  const hash = target.indexOf('#');
  return hash === -1 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}

/** The link targets of a Markdown text outside code: inline `[text](target)`, images, and `[label]: target`. */
export function links(text) {
  const found = [];
  for (const [raw, index] of linesOutsideFences(text)) {
    const line = raw.replace(/(`+)[^`]*?\1/g, '');
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(line);
    if (definition) found.push({ target: definition[1], line: index + 1 });
    for (const match of line.matchAll(/\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ target: match[1], line: index + 1 });
    }
  }
  return found;
}

/** The anchors GitHub gives a document's headings: `## Long runs: progress` → `long-runs-progress`. */
export function headingAnchors(text) {
  const anchors = new Set();
  const counts = new Map();
  for (const [raw] of linesOutsideFences(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const slug = slugOf(heading[1]);
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  }
  // Explicit anchors: <a id="…"></a> or <a name="…">.
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1].toLowerCase());
  return anchors;
}

/** Each line of a Markdown text outside fenced code blocks, with its index; the fences themselves are left out. */
function* linesOutsideFences(text) {
  let fence = null;
  for (const [index, raw] of text.split('\n').entries()) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      if (fence === null) fence = opening[1][0];
      else if (opening[1][0] === fence) fence = null;
      continue;
    }
    if (fence === null) yield [raw, index];
  }
}

/** GitHub's slug of a heading's text: lower case, punctuation dropped, spaces as hyphens. */
function slugOf(heading) {
  const textOnly = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return textOnly
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = await checkLinks();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`${problems.length} broken link${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
  console.log(`links checked: ${(await documents(ROOT)).join(', ')}`);
}
