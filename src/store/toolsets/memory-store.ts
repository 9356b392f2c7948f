import { randomUUID } from 'node:crypto';
import type { ServerRecord } from '../../types/index.js';
import { generateServerCode } from '../codes.js';
import { copyServer } from '../copy-server.js';
import type { AuditEntry } from '../usage/types.js';
import { copyMember, toolsetAppId } from './rows.js';
import type { NewToolset, ToolsetChanges, ToolsetMember, ToolsetRecord, ToolsetStore } from './types.js';

/** The servers of a memory store, as its toolsets share them. */
export interface MemoryToolsetParts {
  servers: Map<string, ServerRecord>;
  /** Moves a record's `updatedAt` strictly forward. */
  move(server: ServerRecord): void;
  /** Records a write's audit entry once the write is made (docs/usage.md, "Audit log"). */
  record(audit: AuditEntry | undefined, targetId: string): void;
}

/** The toolsets of `memoryServerStore`: server records of kind `"toolset"`, their apps beside them. */
export function memoryToolsets({ servers, move, record }: MemoryToolsetParts) {
  const members = new Map<string, ToolsetMember[]>();
  const show = (server: ServerRecord): ToolsetRecord => ({
    ...(copyServer(server) as ToolsetRecord),
    kind: 'toolset',
    allPublished: server.allPublished === true,
    members: (members.get(server.id) ?? []).map(copyMember),
  });
  const find = (id: string) => {
    const server = servers.get(id);
    return server?.kind === 'toolset' ? server : undefined;
  };

  const store: ToolsetStore = {
    async create(input: NewToolset, audit?: AuditEntry) {
      const id = randomUUID();
      const now = new Date();
      const server: ServerRecord = {
        id,
        tenantId: input.tenantId,
        appId: toolsetAppId(id),
        name: input.name,
        description: input.description,
        serverCode: generateServerCode(),
        status: input.status ?? 'active',
        authMode: input.authMode ?? 'code',
        taskSupport: 'optional',
        parameters: {},
        kind: 'toolset',
        allPublished: input.allPublished,
        createdAt: now,
        updatedAt: now,
      };
      servers.set(id, server);
      members.set(id, input.members.map(copyMember));
      record(audit, id);
      return show(server);
    },
    async get(id) {
      const server = find(id);
      return server ? show(server) : null;
    },
    async list(tenantId) {
      return [...servers.values()]
        .filter((server) => server.kind === 'toolset' && server.tenantId === tenantId)
        .map(show);
    },
    async update(id, changes: ToolsetChanges, audit?: AuditEntry) {
      const server = find(id);
      if (!server) return null;
      if (changes.name !== undefined) server.name = changes.name;
      if (changes.description !== undefined) server.description = changes.description;
      if (changes.status !== undefined) server.status = changes.status;
      if (changes.authMode !== undefined) server.authMode = changes.authMode;
      if (changes.allPublished !== undefined) server.allPublished = changes.allPublished;
      if (changes.members !== undefined) members.set(id, changes.members.map(copyMember));
      move(server);
      record(audit, id);
      return show(server);
    },
    async appServers(tenantId) {
      return [...servers.values()]
        .filter((server) => server.kind !== 'toolset' && server.tenantId === tenantId)
        .map(copyServer);
    },
  };

  /** A one-app server changed: the toolsets that serve its app move (see `ToolsetStore`). */
  function touch(changed: ServerRecord): void {
    if (changed.kind === 'toolset') return;
    for (const server of servers.values()) {
      if (server.kind !== 'toolset' || server.tenantId !== changed.tenantId) continue;
      const listed = members.get(server.id)?.some((member) => member.appId === changed.appId);
      if (server.allPublished || listed) move(server);
    }
  }

  return { store, touch, forget: (id: string) => members.delete(id) };
}
