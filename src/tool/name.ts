/** MCP tool names: 1 to 128 of `A-Z a-z 0-9 _ . -` (SEP-986, MCP 2025-11-25 "Tool names"). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Derives a valid tool name from an app name: every run of other characters becomes
 * `_`, leading and trailing `_` are trimmed, the result is cut to 128, and an empty one is `app`.
 * A cut that ends on a replaced run trims that `_` too, so the name never ends in one.
 */
export function toToolName(appName: string): string {
  const name = appName
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128)
    .replace(/_+$/, '');
  return name === '' ? 'app' : name;
}
