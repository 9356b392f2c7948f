/**
 * The commands the product prints or shows (the console page's snippets, the example app's start
 * output, the guides), run as printed: a command line is split into words as a POSIX shell does
 * (quotes, backslash-newline), and its `npx -y <package>@<version>` replaced by the copy of that
 * package at that version that scripts/tools.mjs installed, run by the Node binary the test names
 * (this one, Node 20 in CI, or a Node 22). A command that names another version, or leaves out
 * `-y` (npx then asks before installing), is refused before it runs.
 */
import { TOOLS } from '../../scripts/tools.mjs';
import { INSPECTOR, launch } from './processes.js';

/** `@modelcontextprotocol/inspector@<version>`, as every printed command must name it. */
export const PINNED_INSPECTOR = `${TOOLS.inspector.package}@${TOOLS.inspector.version}`;

/** The words of one command line, as `sh` splits them (double and single quotes, `\` escapes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (char === '\\') {
      const next = line[++i];
      if (next !== '\n' && next !== undefined) word = (word ?? '') + next;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (quote) throw new Error(`unterminated ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The Inspector commands of a text: each `npx … @modelcontextprotocol/inspector…` line, continuations joined. */
export function inspectorCommands(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, '\\\n');
  return [...joined.matchAll(/npx\b[^\n`]*@modelcontextprotocol\/inspector(?:\\\n|[^\n`])*/g)].map((match) =>
    match[0].trim(),
  );
}

/**
 * Runs an Inspector command as printed, with `node` (the Inspector's own copy stands in for what
 * `npx -y` would download); resolves with its exit code and what it printed.
 */
export async function runPrintedInspector(command: string, node: string, home: string) {
  const [npx, yes, pkg, ...args] = shellWords(command);
  if (npx !== 'npx' || yes !== '-y' || pkg !== PINNED_INSPECTOR) {
    throw new Error(`not "npx -y ${PINNED_INSPECTOR} …": ${command}`);
  }
  const run = launch(node, [INSPECTOR, ...args], { HOME: home });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), output: run.output() };
}
