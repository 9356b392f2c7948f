/**
 * What the shape of a tool and of its results depends on, as one protocol revision defines it
 * (see `docs/http-contract.md`, "Version-gated shapes"):
 * - `structured`: `title`, `outputSchema` and `structuredContent` (MCP 2025-06-18 on);
 * - `toolErrorsAsResults`: arguments that fail are a tool result, not a JSON-RPC error (MCP 2025-11-25, SEP-1303);
 * - `icons`: the tool's `icons` (MCP 2025-11-25 on).
 */
export interface ToolFeatures {
  readonly structured: boolean;
  readonly toolErrorsAsResults: boolean;
  readonly icons: boolean;
}
