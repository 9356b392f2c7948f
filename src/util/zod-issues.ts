import type { z } from 'zod';

/** One problem zod found, with the dotted path to the value (`""` for the value itself). */
export interface Issue {
  path: string;
  message: string;
}

/** zod's issues as plain data, for error texts and error payloads. */
export function issuesOf(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** The issues as one sentence: `path: message` joined by `; `. */
export function issueText(issues: Issue[]): string {
  return issues.map(({ path, message }) => (path ? `${path}: ${message}` : message)).join('; ');
}
