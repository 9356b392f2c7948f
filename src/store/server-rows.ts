import type { AuthMode, ServerKind, ServerRecord, TaskSupport } from '../types/index.js';
import { withAnnotations } from './annotations.js';

/** A row of the servers table, as the drivers give it. */
export interface ServerRow {
  id: string;
  tenant_id: string;
  app_id: string;
  name: string;
  description: string;
  server_code: string;
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

export function toServer(row: ServerRow): ServerRecord {
  const server: ServerRecord = {
    id: row.id,
    tenantId: row.tenant_id,
    appId: row.app_id,
    name: row.name,
    description: row.description,
    serverCode: row.server_code,
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
