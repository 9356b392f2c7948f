import { stripNul } from '../tool/nul.js';

/** Unnamed clients' runs are attributed to an end user with this name. */
export const DEFAULT_CLIENT_NAME = 'mcp-client';

/** `clientInfo.name@clientInfo.version`, the end user's name, or `undefined` when the client did not say. */
export function clientNameOf(clientInfo: unknown): string | undefined {
  if (typeof clientInfo !== 'object' || clientInfo === null) return undefined;
  const { name, version } = clientInfo as { name?: unknown; version?: unknown };
  if (typeof name !== 'string' || name === '') return undefined;
  // Stored as the end user's name, and PostgreSQL's text holds no NUL (docs/http-contract.md, "End user").
  const named = typeof version === 'string' && version !== '' ? `${name}@${version}` : name;
  return stripNul(named) || undefined;
}
