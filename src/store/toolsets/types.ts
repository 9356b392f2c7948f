import type { AuthMode, ServerRecord, TaskSupport, ToolAnnotations } from '../../types/index.js';
import type { AuditEntry } from '../usage/types.js';

/**
 * One app of a toolset and how its tool shows (docs/toolsets.md). Each field absent takes what
 * the app's own one-app server gives, then what a one-app server would give.
 */
export interface ToolsetMember {
  appId: string;
  /** The tool's name (1 to 128 of `A-Z a-z 0-9 _ - .`). */
  toolName?: string;
  description?: string;
  parameters?: Record<string, string>;
  annotations?: ToolAnnotations;
  taskSupport?: TaskSupport;
}

/** A toolset: a server row of kind `"toolset"`, with its apps in list order. */
export interface ToolsetRecord extends ServerRecord {
  kind: 'toolset';
  /** Its tools are the tenant's published apps, by app name; `members` is then empty. */
  allPublished: boolean;
  members: ToolsetMember[];
}

/** What a new toolset needs; the store draws its id and code. */
export interface NewToolset {
  tenantId: string;
  name: string;
  description: string;
  allPublished: boolean;
  members: ToolsetMember[];
  /** Default `"code"`. */
  authMode?: AuthMode;
  /** Default `"active"`. */
  status?: 'active' | 'inactive';
}

/** The editable fields of a toolset; absent fields are kept, `members` replaces the list. */
export interface ToolsetChanges {
  name?: string;
  description?: string;
  allPublished?: boolean;
  members?: ToolsetMember[];
  authMode?: AuthMode;
  status?: 'active' | 'inactive';
}

/**
 * Where a store keeps its toolsets (`store.toolsets`). A toolset is a server: its code is rotated
 * with `rotateCode`, it is deleted with `deleteServer`, and `getServerByCode` finds it. Every write
 * to a toolset, and every write to a one-app server that changes what a toolset serves (publish,
 * edit, deactivate, unpublish), moves the toolset's `updatedAt`: that is its revision, which the
 * endpoint's caches and a farm's other instances follow.
 */
export interface ToolsetStore {
  /** Makes a toolset with a fresh code; `audit` is recorded with it (docs/usage.md, "Audit log"). */
  create(input: NewToolset, audit?: AuditEntry): Promise<ToolsetRecord>;
  /** A toolset by id, or `null` (none, or a one-app server). */
  get(id: string): Promise<ToolsetRecord | null>;
  /** The tenant's toolsets, oldest first. */
  list(tenantId: string): Promise<ToolsetRecord[]>;
  /** Applies changes and moves `updatedAt`; `null` when there is no such toolset. */
  update(id: string, changes: ToolsetChanges, audit?: AuditEntry): Promise<ToolsetRecord | null>;
  /** The tenant's one-app servers, whatever their status: what members are served from. */
  appServers(tenantId: string): Promise<ServerRecord[]>;
}
