import type { HostApp, ServerRecord } from './app.js';
import type { Caller } from './run.js';

/** What `canUseTool` is asked about: one tool of a server, and who calls (docs/toolsets.md). */
export interface ToolUse {
  /** The one-app server or the toolset the request is for. */
  server: ServerRecord;
  /** The app behind the tool. */
  app: HostApp;
  /** Who calls, as `run.caller` says. */
  caller: Caller;
}

/**
 * Whether a caller may use a tool: a tool it may not is absent from `tools/list`, and calling it
 * answers as an unknown tool does, on toolsets and one-app servers alike (docs/toolsets.md).
 */
export type CanUseTool = (use: ToolUse) => boolean | Promise<boolean>;
