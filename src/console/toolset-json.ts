import type { ToolsetMember, ToolsetRecord } from '../store/toolsets/types.js';
import { pickAnnotations } from '../tool/annotations.js';
import type { AuthMode, TaskSupport, ToolAnnotations } from '../types/index.js';
import { codeFieldsOf, unixSeconds } from './server-json.js';

/** One app of a toolset as the console shows it; `null`: the app's own server's (docs/toolsets.md). */
export interface ConsoleToolsetApp {
  app_id: string;
  tool_name: string | null;
  description: string | null;
  parameters: Record<string, string> | null;
  /** `{}`: none, whatever the app's own server has; `null`: the app's own server's. */
  annotations: ToolAnnotations | null;
  task_support: TaskSupport | null;
}

/** A toolset as the console shows it (docs/toolsets.md). */
export interface ConsoleToolset {
  id: string;
  name: string;
  description: string;
  /** The code; `null` where the store keeps codes hashed (docs/keys.md), except in the reply that makes it. */
  server_code: string | null;
  /** The code's first four characters; only where the store keeps codes hashed. */
  code_hint?: string;
  status: 'active' | 'inactive';
  auth_mode: AuthMode;
  all_published: boolean;
  apps: ConsoleToolsetApp[];
  /** The MCP endpoint path for the code; `null` when `server_code` is. */
  url: string | null;
  /** Unix seconds. */
  created_at: number;
  updated_at: number;
}

const toConsoleApp = (member: ToolsetMember): ConsoleToolsetApp => ({
  app_id: member.appId,
  tool_name: member.toolName ?? null,
  description: member.description ?? null,
  parameters: member.parameters ?? null,
  annotations: member.annotations ? (pickAnnotations(member.annotations) ?? {}) : null,
  task_support: member.taskSupport ?? null,
});

export function toConsoleToolset(
  toolset: ToolsetRecord,
  mcpPath: (serverCode: string) => string,
): ConsoleToolset {
  return {
    id: toolset.id,
    name: toolset.name,
    description: toolset.description,
    ...codeFieldsOf(toolset, mcpPath),
    status: toolset.status,
    auth_mode: toolset.authMode ?? 'code',
    all_published: toolset.allPublished,
    apps: toolset.members.map(toConsoleApp),
    created_at: unixSeconds(toolset.createdAt),
    updated_at: unixSeconds(toolset.updatedAt),
  };
}
