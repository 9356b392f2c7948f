import { RemoteMcpError } from './errors.js';
import type { ListedTool, RequestLimits, Session } from './session.js';
import type { RemoteTool } from './types.js';

/** More pages than a real server sends; a list that long is refused rather than cut. */
export const MAX_TOOL_PAGES = 100;

/**
 * Every tool of the server, page after page as `nextCursor` leads (MCP 2025-06-18, "Pagination").
 * A server that gives a cursor again (it would page for ever), lists a name twice (names identify
 * tools: MCP 2025-06-18, tools), pages past `MAX_TOOL_PAGES` or lists more than `maxTools` tools
 * gets no list at all, but an `invalid-reply`: never a repeated or a partial list.
 */
export async function listAllTools(
  session: Session,
  server: string,
  limits: RequestLimits,
  maxTools: number,
): Promise<RemoteTool[]> {
  const invalid = (reason: string) =>
    new RemoteMcpError(server, 'invalid-reply', `answered tools/list ${reason}`);
  const listed = new Map<string, RemoteTool>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await session.listTools(cursor, limits);
    cursor = result.nextCursor;
    if (cursor && cursors.has(cursor)) {
      throw invalid('with a cursor it had given before, which would page for ever');
    }
    for (const tool of result.tools) {
      if (listed.has(tool.name)) throw invalid(`with two tools named ${JSON.stringify(tool.name)}`);
      listed.set(tool.name, toRemoteTool(tool));
    }
    if (listed.size > maxTools)
      throw invalid(`with more than ${maxTools} tools, more than the client reads (maxTools)`);
    if (!cursor) return [...listed.values()];
    cursors.add(cursor);
  }
  throw invalid(`with more than ${MAX_TOOL_PAGES} pages, more than the client reads`);
}

function toRemoteTool(tool: ListedTool): RemoteTool {
  const remote: RemoteTool = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) remote.title = tool.title;
  if (tool.description !== undefined) remote.description = tool.description;
  if (tool.outputSchema !== undefined) remote.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) remote.annotations = tool.annotations;
  return remote;
}
