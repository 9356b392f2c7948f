import type { RemoteTool } from '../../client/types.js';
import type { ToolProvider } from '../../store/providers/types.js';
import { maskHeaders, maskUrl } from './masking.js';

/** A provider as the console shows it: the URL and header values masked, times in unix seconds. */
export interface ConsoleToolProvider {
  id: string;
  name: string;
  /** `https://host/******`: the path, query and credentials are never shown. */
  server_url: string;
  /** Header names with masked values. */
  headers: Record<string, string>;
  timeout_ms: number;
  call_timeout_ms: number;
  tools: RemoteTool[];
  tools_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function toConsoleProvider(provider: ToolProvider): ConsoleToolProvider {
  return {
    id: provider.id,
    name: provider.name,
    server_url: maskUrl(provider.serverUrl),
    headers: maskHeaders(provider.headers),
    timeout_ms: provider.timeoutMs,
    call_timeout_ms: provider.callTimeoutMs,
    tools: provider.tools,
    tools_updated_at: provider.toolsUpdatedAt && unixSeconds(provider.toolsUpdatedAt),
    created_at: unixSeconds(provider.createdAt),
    updated_at: unixSeconds(provider.updatedAt),
  };
}
