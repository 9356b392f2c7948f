import { McpError } from '../errors/mcp-error.js';
import type { CanUseTool } from '../types/index.js';
import type { RequestId } from './messages.js';
import type { ErrorReporter } from './report.js';
import type { ServingTarget } from './target.js';
import type { ToolList } from './tool-list.js';

/**
 * The target's tools this caller may use (`canUseTool`), asked once per tool for each request,
 * where the list is read, so that `tools/list` and every method that names a tool see the same
 * list. A hook that throws answers an opaque internal error, reported with its cause: a tool is
 * neither shown nor hidden by accident.
 */
export async function visibleTools(
  target: ServingTarget,
  canUseTool: CanUseTool,
  id: RequestId | null,
  report: ErrorReporter,
): Promise<ToolList> {
  const { server, caller, tools } = target;
  try {
    const keep = await Promise.all(
      tools.tools.map(async ({ app }) => (await canUseTool({ server, app, caller })) === true),
    );
    return tools.filter(keep);
  } catch (error) {
    report(error, { phase: 'dispatch', serverId: server.id });
    throw new McpError('internal', 'Internal error', undefined, id);
  }
}
