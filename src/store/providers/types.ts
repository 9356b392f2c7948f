import type { RemoteTool } from '../../client/types.js';
import type { AuditEntry } from '../usage/types.js';

/** A remote MCP server a tenant's apps may call, with its credentials in the clear (decrypted). */
export interface ToolProvider {
  id: string;
  tenantId: string;
  /** Unique within the tenant. */
  name: string;
  serverUrl: string;
  /** Sent with every request to the server, e.g. `Authorization`. */
  headers: Record<string, string>;
  /** `connectMcpServer`'s `timeoutMs`: connecting and listing tools. */
  timeoutMs: number;
  /** `connectMcpServer`'s `callTimeoutMs`: one tool call. */
  callTimeoutMs: number;
  /** The server's tools as last listed. */
  tools: RemoteTool[];
  /** When `tools` was last listed; `null` before the first time. */
  toolsUpdatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a new provider needs; the store draws its id. Timeouts default to `connectMcpServer`'s. */
export interface NewToolProvider {
  tenantId: string;
  name: string;
  serverUrl: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  callTimeoutMs?: number;
  tools?: RemoteTool[];
}

/** The editable fields of a provider; absent fields are kept. Giving `tools` moves `toolsUpdatedAt`. */
export interface ToolProviderChanges {
  name?: string;
  serverUrl?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  callTimeoutMs?: number;
  tools?: RemoteTool[];
}

/**
 * Where a host keeps the remote MCP servers of each tenant. Every method is scoped to one tenant:
 * another tenant's provider is "not found".
 */
export interface ToolProviderStore {
  /**
   * Stores a provider. Throws `ToolProviderExistsError` when the tenant has one of that name. Each
   * write takes an optional `audit` entry, recorded in the same transaction (docs/usage.md, "Audit log").
   */
  createProvider(input: NewToolProvider, audit?: AuditEntry): Promise<ToolProvider>;
  /** The tenant's providers, oldest first. */
  listProviders(tenantId: string): Promise<ToolProvider[]>;
  getProvider(tenantId: string, id: string): Promise<ToolProvider | null>;
  getProviderByName(tenantId: string, name: string): Promise<ToolProvider | null>;
  /** Applies changes; `null` when there is no such provider. Throws `ToolProviderExistsError` on a taken name. */
  updateProvider(
    tenantId: string,
    id: string,
    changes: ToolProviderChanges,
    audit?: AuditEntry,
  ): Promise<ToolProvider | null>;
  /** `false` when there was none. */
  deleteProvider(tenantId: string, id: string, audit?: AuditEntry): Promise<boolean>;
}

/** Thrown when a tenant already has a provider of that name. */
export class ToolProviderExistsError extends Error {
  override name = 'ToolProviderExistsError';
  constructor(
    readonly tenantId: string,
    readonly providerName: string,
  ) {
    super(`a tool provider named "${providerName}" already exists`);
  }
}
