import type { AuditAction, AuditEntry } from '../store/usage/types.js';
import type { ConsoleAccess } from './console-options.js';

/**
 * The audit entry of a console write (docs/usage.md, "Audit log"), handed to the store's write
 * method so that the write and its record commit together. Every console that writes calls it:
 * servers, toolsets, caller keys and tool providers. `details` says what changed, never a code, a
 * key or a header value; `targetId` is absent for a write that makes its target (the store fills
 * in the id it draws).
 */
export function auditEntry(
  access: ConsoleAccess,
  action: AuditAction,
  details: Record<string, unknown>,
  targetId?: string,
): AuditEntry {
  return {
    tenantId: access.tenantId,
    actor: access.actor ?? null,
    action,
    ...(targetId === undefined ? {} : { targetId }),
    details,
  };
}

/**
 * The fields of `next` whose values differ from `current`'s, under the names the console uses: what
 * an edit changed, for its audit details.
 */
export function changedFields(
  current: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(next)) {
    if (value === undefined) continue;
    if (JSON.stringify(current[name]) !== JSON.stringify(value)) changed[name] = value;
  }
  return changed;
}
