import type { ToolProvider, ToolProviderChanges } from '../../store/providers/types.js';
import { ConsoleError } from '../errors.js';
import { MASK } from './masking.js';

/**
 * What an edit of a provider compares (its headers, its origin) and what it changed, for the
 * provider console (`console.ts`).
 */

/** Whether `next` (absent: unchanged) holds exactly the `current` headers. */
export function sameHeaders(
  next: Record<string, string> | undefined,
  current: Record<string, string>,
): boolean {
  if (next === undefined) return true;
  const entries = Object.entries(next);
  return (
    entries.length === Object.keys(current).length &&
    entries.every(([name, value]) => current[name] === value)
  );
}

/** Whether two URLs share their origin; a URL that does not parse shares none. */
export function sameOrigin(next: string, current: string): boolean {
  try {
    return new URL(next).origin === new URL(current).origin;
  } catch {
    return false;
  }
}

/**
 * The headers of an edit that moves a provider to another origin: all of them, none still masked;
 * a 400 naming each field otherwise. A provider without headers may leave them out.
 */
export function headersForNewOrigin(
  edited: Record<string, string> | undefined,
  stored: Record<string, string>,
): Record<string, string> {
  const fields: Record<string, string> = {};
  if (edited === undefined && Object.keys(stored).length > 0) {
    fields.headers = 'must be given again, in full, for a server_url on another origin ({} for none)';
  }
  for (const [name, value] of Object.entries(edited ?? {})) {
    if (value === MASK)
      fields[`headers.${name}`] = 'must be given again: stored values are not sent to another origin';
  }
  const problems = Object.entries(fields).map(([field, message]) => `${field} ${message}`);
  if (problems.length > 0) {
    throw new ConsoleError('invalid_request', `Invalid request body: ${problems.join('; ')}`, fields);
  }
  return edited ?? {};
}

/**
 * What an edit of a provider changed, for its audit details: the name and timeouts as they are; the
 * URL and the headers only as changed (with the header names), never their values.
 */
export function providerChanges(
  current: ToolProvider,
  changes: ToolProviderChanges,
): Record<string, unknown> {
  const details: Record<string, unknown> = { name: changes.name ?? current.name };
  if (changes.name !== undefined) details.renamed_from = current.name;
  if (changes.serverUrl !== undefined) details.server_url_changed = true;
  if (changes.headers !== undefined && !sameHeaders(changes.headers, current.headers)) {
    details.header_names = Object.keys(changes.headers);
  }
  if (changes.timeoutMs !== undefined) details.timeout_ms = changes.timeoutMs;
  if (changes.callTimeoutMs !== undefined) details.call_timeout_ms = changes.callTimeoutMs;
  if (changes.tools !== undefined) details.tools = changes.tools.length;
  return details;
}
