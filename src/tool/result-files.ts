import { type ResultFile, structuredFile, toResultFile } from './app-file.js';
import type { FileOutput } from './outputs.js';

/** A successful run's result before it becomes content blocks: its text, structure and files. */
export interface ResultParts {
  text: string;
  structured: Record<string, unknown>;
  /** In the order their content blocks follow the text. */
  files: ResultFile[];
}

/**
 * A workflow's outputs with its declared files (README, "Files in and out"). `structuredContent` shows each file as
 * `{url | data, name, mime_type, size}`; the text block shows the same JSON without the inline
 * `data`, which is in the file's own content block, so the model does not read the bytes twice.
 * The outputs have passed the output check, so each declared file is a usable one.
 */
export function outputParts(
  outputs: Record<string, unknown>,
  fileOutputs: readonly FileOutput[],
): ResultParts {
  if (fileOutputs.length === 0) return { text: JSON.stringify(outputs), structured: outputs, files: [] };
  const structured = { ...outputs };
  const shown = { ...outputs };
  const files: ResultFile[] = [];
  for (const { variable, list } of fileOutputs) {
    const value = outputs[variable];
    const own = (list ? (value as unknown[]) : [value]).map((item) => toResultFile(item) as ResultFile);
    files.push(...own);
    const asStructured = own.map((file) => structuredFile(file));
    const asText = own.map((file) => structuredFile(file, { withData: false }));
    setKey(structured, variable, list ? asStructured : asStructured[0]);
    setKey(shown, variable, list ? asText : asText[0]);
  }
  return { text: JSON.stringify(shown), structured, files };
}

/**
 * A chat answer with the files the app sent (`message_file` events or `files`); `structuredContent`
 * is `{answer}`, plus `files` when there are any. A file that cannot be sent is a problem.
 */
export function answerParts(answer: string, appFiles: readonly unknown[]): ResultParts | { problem: string } {
  const files: ResultFile[] = [];
  for (const [index, appFile] of appFiles.entries()) {
    const file = toResultFile(appFile);
    if (typeof file === 'string') return { problem: `file ${index + 1} ${file}` };
    files.push(file);
  }
  const structured =
    files.length > 0 ? { answer, files: files.map((file) => structuredFile(file)) } : { answer };
  return { text: answer, structured, files };
}

/** An output may be named like an Object.prototype member (`__proto__`); it stays a plain key. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
