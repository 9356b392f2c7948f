/**
 * A host that mounts a body parser (a global `express.json()`) before `mcpServer()` hands the route
 * a body that parser already read: its size limit (100 kB by default for `express.json()`) replaces
 * `maxBodyBytes`, and it answers malformed or too-large bodies with the host's error page instead of
 * a JSON-RPC error. That works until a large call fails, so the first such request says so, once
 * per process, as a Node.js warning (`process.on('warning')`; hidden by `--no-warnings`).
 */
export const PARSED_BODY_WARNING_CODE = 'EXPRESS_APP_MCP_BODY_ALREADY_PARSED';

let warned = false;

export function warnBodyAlreadyParsed(maxBodyBytes: number): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    'mcpServer() received a request body that another body parser (such as a global express.json()) ' +
      "had already parsed. That parser's size limit (express.json() defaults to 100 kB) applies instead " +
      `of maxBodyBytes (${maxBodyBytes} bytes), and it answers malformed or too-large bodies with the ` +
      "app's error page instead of a JSON-RPC error. Mount mcpServer() before the body parser, or raise " +
      "the parser's limit.",
    { type: 'ExpressAppMcpWarning', code: PARSED_BODY_WARNING_CODE },
  );
}
