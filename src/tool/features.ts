/**
 * What the shape of a tool and of its results depends on, as one protocol revision defines it
 * (see `docs/http-contract.md`, "Version-gated shapes"):
 * - `annotations`: the tool's `annotations` hints (MCP 2025-03-26 on);
 * - `structured`: `title`, `outputSchema` and `structuredContent` (MCP 2025-06-18 on);
 * - `toolErrorsAsResults`: arguments that fail are a tool result, not a JSON-RPC error (MCP 2025-11-25, SEP-1303);
 * - `icons`: the tool's `icons` (MCP 2025-11-25 on);
 * - `audioContent`: `audio` content blocks in results (MCP 2025-03-26 on);
 * - `resourceLinks`: `resource_link` content blocks in results (MCP 2025-06-18 on);
 * - `taskSupport`: the tool's `execution.taskSupport` (MCP 2025-11-25 only; docs/tasks.md).
 */
export interface ToolFeatures {
  readonly annotations: boolean;
  readonly structured: boolean;
  readonly toolErrorsAsResults: boolean;
  readonly icons: boolean;
  readonly audioContent: boolean;
  readonly resourceLinks: boolean;
  readonly taskSupport: boolean;
}
