import { pickAnnotations } from '../tool/annotations.js';
import type { AuthMode, ServerRecord, TaskSupport, ToolAnnotations } from '../types/index.js';

/** A server as the console shows it (README, "Console API"), in Dify's field names. */
export interface ConsoleServer {
  id: string;
  name: string;
  /**
   * The code; `null` where the store keeps codes hashed (docs/keys.md), except in the reply that
   * makes it (publish, rotate).
   */
  server_code: string | null;
  /** The code's first four characters; only where the store keeps codes hashed. */
  code_hint?: string;
  description: string;
  status: 'active' | 'inactive';
  /** `code`: whoever has the URL may call it; `oauth`: a user signed in with the host's identity provider as well; `key`: a caller key as well. */
  auth_mode: AuthMode;
  /** Whether the tool runs as a task: `forbidden`, `optional` or `required` (docs/tasks.md). */
  task_support: TaskSupport;
  parameters: Record<string, string>;
  /** The tool's hints; `{}` when it carries none. */
  annotations: ToolAnnotations;
  /** Unix seconds, like Dify's `TimestampField`. */
  created_at: number;
  updated_at: number;
  /** The MCP endpoint path for the code; `null` when `server_code` is. */
  url: string | null;
}

export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * A record's code as the console shows it, for servers and toolsets alike: a store that keeps codes
 * hashed knows a code only in the record that made it, and gives its hint otherwise (docs/keys.md).
 */
export function codeFieldsOf(
  server: ServerRecord,
  mcpPath: (serverCode: string) => string,
): Pick<ConsoleServer, 'server_code' | 'code_hint' | 'url'> {
  return {
    server_code: server.serverCode || null,
    ...(server.codeHint === undefined ? {} : { code_hint: server.codeHint }),
    url: server.serverCode ? mcpPath(server.serverCode) : null,
  };
}

export function toConsoleServer(
  server: ServerRecord,
  mcpPath: (serverCode: string) => string,
): ConsoleServer {
  return {
    id: server.id,
    name: server.name,
    ...codeFieldsOf(server, mcpPath),
    description: server.description,
    status: server.status,
    auth_mode: server.authMode ?? 'code',
    task_support: server.taskSupport ?? 'optional',
    parameters: server.parameters,
    annotations: pickAnnotations(server.annotations) ?? {},
    created_at: unixSeconds(server.createdAt),
    updated_at: unixSeconds(server.updatedAt),
  };
}
