import type { AuthMode, ServerKind, ServerRecord, TaskSupport } from '../types/index.js';
import { withAnnotations } from './annotations.js';
import { isHashedCode } from './code-hash.js';

/** A row of the servers table, as the drivers give it. */
export interface ServerRow {
  id: string;
  tenant_id: string;
  app_id: string;
  name: string;
  description: string;
  /** The code, or its SHA-256 where codes are hashed at rest (docs/keys.md). */
  server_code: string;
  /** The code's first four characters; set where the code is hashed (migration 0014). */
  code_hint?: string | null;
  status: 'active' | 'inactive';
  auth_mode: AuthMode;
  task_support: TaskSupport;
  parameters: string;
  /** JSON text of the tool's hints; NULL when there are none. */
  annotations: string | null;
  kind: ServerKind;
  /** SQLite gives 0 or 1. */
  all_published: boolean | number;
  /** `pg` returns bigint columns as strings, SQLite as numbers. */
  created_at: number | string;
  updated_at: number | string;
}

export interface EndUserRow {
  id: string;
  name: string;
}

/** The record of a row; a hashed code reads as `''`, with its hint (see `ServerRecord.codeHint`). */
export function toServer(row: ServerRow): ServerRecord {
  const hashed = isHashedCode(row.server_code);
  const server: ServerRecord = {
    id: row.id,
    tenantId: row.tenant_id,
    appId: row.app_id,
    name: row.name,
    description: row.description,
    serverCode: hashed ? '' : row.server_code,
    ...(hashed ? { codeHint: row.code_hint ?? '' } : {}),
    status: row.status,
    authMode: row.auth_mode,
    taskSupport: row.task_support,
    parameters: JSON.parse(row.parameters) as Record<string, string>,
    kind: row.kind,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
  if (row.kind === 'toolset') server.allPublished = Boolean(row.all_published);
  return withAnnotations(server, row.annotations);
}
