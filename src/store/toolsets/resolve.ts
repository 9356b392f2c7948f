import { LRUCache } from 'lru-cache';
import type { HostApp, LoadApp, ResolvedMember, ServerRecord } from '../../types/index.js';
import type { ToolsetMember, ToolsetStore } from './types.js';

/** How many toolsets keep their resolved members. */
const TOOLSETS_KEPT = 1000;

/** The members of a toolset at one revision, and until when they stand for its apps. */
interface Entry {
  updatedAt: number;
  until: number;
  members: Promise<ResolvedMember[]>;
}

/**
 * A toolset's members as the endpoint serves them (docs/toolsets.md): each member app that has an
 * active one-app server of its own (publishing is what lets an app be called; deactivating or
 * unpublishing it takes it out of every toolset too), its fields the member's, else that server's;
 * an `all_published` toolset's are every such app published with the toolset's auth mode, by app name. Read once per revision of the
 * toolset (its `updatedAt` moves whenever its members or their servers change) and kept as long
 * as the apps are (`ttlMs`, the resolver's `appCacheTtlMs`), so that a hit returns the very same
 * array and the endpoint's list built from it is reused as it is.
 */
export function toolsetMembers(
  toolsets: ToolsetStore,
  load: LoadApp,
  ttlMs: number,
): (server: ServerRecord) => Promise<ResolvedMember[]> {
  const cache = new LRUCache<string, Entry>({ max: TOOLSETS_KEPT });
  return (server) => {
    const updatedAt = server.updatedAt.getTime();
    const now = Date.now();
    const entry = cache.get(server.id);
    if (entry && entry.updatedAt === updatedAt && entry.until > now) return entry.members;
    const members = readMembers(toolsets, load, server);
    if (ttlMs > 0) {
      cache.set(server.id, { updatedAt, until: now + ttlMs, members });
      members.catch(() => cache.delete(server.id));
    }
    return members;
  };
}

async function readMembers(
  toolsets: ToolsetStore,
  load: LoadApp,
  server: ServerRecord,
): Promise<ResolvedMember[]> {
  const [toolset, appServers] = await Promise.all([
    toolsets.get(server.id),
    toolsets.appServers(server.tenantId),
  ]);
  if (!toolset) return [];
  const published = new Map<string, ServerRecord>();
  for (const appServer of appServers)
    if (appServer.status === 'active') published.set(appServer.appId, appServer);
  // An app published for signed-in users only is never served by code through an `all_published`
  // toolset: it follows the apps published with the toolset's own auth mode.
  const mode = server.authMode ?? 'code';
  const listed: ToolsetMember[] = toolset.allPublished
    ? [...published.values()]
        .filter((appServer) => (appServer.authMode ?? 'code') === mode)
        .map((appServer) => ({ appId: appServer.appId }))
    : toolset.members.filter((member) => published.has(member.appId));
  const resolved = await Promise.all(
    listed.map(async (member) =>
      resolvedMember(
        member,
        published.get(member.appId) as ServerRecord,
        await load(member.appId, server.tenantId),
      ),
    ),
  );
  if (!toolset.allPublished) return resolved;
  return resolved.sort((a, b) => byName(a.app, b.app));
}

function resolvedMember(member: ToolsetMember, own: ServerRecord, app: HostApp | null): ResolvedMember {
  const resolved: ResolvedMember = {
    app,
    description: member.description || own.description || app?.description || '',
    parameters: member.parameters ?? own.parameters,
    taskSupport: member.taskSupport ?? own.taskSupport ?? 'optional',
  };
  if (member.toolName !== undefined) resolved.toolName = member.toolName;
  const annotations = member.annotations ?? own.annotations;
  if (annotations) resolved.annotations = annotations;
  return resolved;
}

/** By app name, then id, so that two apps of one name keep one order everywhere. */
function byName(a: HostApp | null, b: HostApp | null): number {
  const [left, right] = [a?.name ?? '', b?.name ?? ''];
  if (left !== right) return left < right ? -1 : 1;
  const [leftId, rightId] = [a?.id ?? '', b?.id ?? ''];
  return leftId < rightId ? -1 : leftId > rightId ? 1 : 0;
}
