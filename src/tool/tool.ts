import type { HostApp, ServerRecord } from '../types/index.js';
import { pickAnnotations } from './annotations.js';
import { type ArgumentCheck, compileArgumentChecker } from './arguments.js';
import { describeConversations } from './conversation.js';
import type { ToolFeatures } from './features.js';
import { DEFAULT_FILE_INPUT_LIMITS, type FileInputLimits } from './file-input.js';
import { keepsConversations } from './input-form.js';
import { buildInputSchema } from './input-schema.js';
import { toToolName } from './name.js';
import { buildOutputSchema, compileOutputCheck, declaredFileOutputs, type FileOutput } from './outputs.js';

/** One server's tool: its descriptors and checks, computed once per app and server revision. */
export interface AppTool {
  readonly name: string;
  /** The `tools/list` entry for a protocol version (docs/http-contract.md, "Version-gated shapes"). */
  describe(features: ToolFeatures): Readonly<Record<string, unknown>>;
  /** Whether runs take and results carry a conversation (`HostApp.conversations`, chat modes). */
  readonly conversations: boolean;
  checkArguments(args: Record<string, unknown>): ArgumentCheck;
  /** Problems with a workflow's outputs against its declared outputs; `null` when none are declared. */
  readonly checkOutputs: ((outputs: Record<string, unknown>) => string[]) | null;
  /** The declared outputs that hold files. */
  readonly fileOutputs: readonly FileOutput[];
}

export type ToolNamer = (app: HostApp) => string;

/**
 * How a tool shows, beside its app: a one-app server's record, or a toolset member's fields
 * (docs/toolsets.md). `id` and `updatedAt` are its revision, which the tool cache compares.
 */
export interface ToolFace
  extends Pick<ServerRecord, 'id' | 'description' | 'parameters' | 'annotations' | 'taskSupport'> {
  updatedAt?: Date;
  /** The name settled for it (a toolset's, made unique); absent: the one a one-app server gives. */
  toolName?: string;
}

/** The name a one-app server gives its app's tool (docs/http-contract.md, "The tool"). */
export function defaultToolName(app: HostApp, toolName: ToolNamer | undefined): string {
  // An override is trusted for intent, not for syntax: it is made valid the same way.
  return toToolName(toolName ? toolName(app) : app.name);
}

function buildTool(
  app: HostApp,
  server: ToolFace,
  toolName: ToolNamer | undefined,
  limits: FileInputLimits,
): AppTool {
  const name = server.toolName ?? defaultToolName(app, toolName);
  const conversations = keepsConversations(app);
  const ownDescription = server.description || app.description || '';
  const description = conversations ? describeConversations(ownDescription) : ownDescription;
  const inputSchema = buildInputSchema(app, server.parameters ?? {});
  const outputSchema = buildOutputSchema(app);
  const icons = app.icon && /^(https:|data:)/i.test(app.icon) ? [{ src: app.icon }] : undefined;

  const annotations = pickAnnotations(server.annotations);
  const taskSupport = server.taskSupport ?? 'optional';
  // Where the tool carries no `execution.taskSupport`, a tool that runs only as a task says so.
  const noted = (note: string) =>
    taskSupport === 'required' ? `${description}${description ? '\n\n' : ''}${note}` : description;
  const untasked = noted(TASK_ONLY);

  // Exactly the keys each revision knows: older clients validate tool shapes strictly.
  const basic = Object.freeze({ name, description: untasked, inputSchema });
  // MCP 2025-03-26 added `annotations`; a tool without hints carries no field at all.
  const annotated = annotations ? Object.freeze({ ...basic, annotations }) : basic;
  const structured = Object.freeze({
    name,
    title: app.name,
    description: untasked,
    inputSchema,
    outputSchema,
    ...(annotations && { annotations }),
  });
  // MCP 2025-11-25 added `icons` and `execution.taskSupport` together; 2026-07-28 keeps the icons
  // and drops `execution`: there the server decides which calls become tasks (SEP-2663).
  const tasked = Object.freeze({
    ...structured,
    description,
    ...(icons && { icons }),
    execution: Object.freeze({ taskSupport }),
  });
  const modern = Object.freeze({
    ...structured,
    description: noted(TASK_ONLY_MODERN),
    ...(icons && { icons }),
  });

  return {
    name,
    describe(features) {
      if (features.taskSupport) return tasked;
      if (features.icons) return modern;
      if (features.structured) return structured;
      return features.annotations ? annotated : basic;
    },
    conversations,
    checkArguments: compileArgumentChecker(app, limits),
    checkOutputs: compileOutputCheck(app),
    fileOutputs: declaredFileOutputs(app),
  };
}

/** What a client of a revision without tasks reads of a tool that runs only as a task. */
const TASK_ONLY =
  'This tool runs only as a task (MCP tasks, protocol 2025-11-25 or later); this client cannot call it.';
/** The same, for a 2026-07-28 client, which can call it once it declares the tasks extension. */
const TASK_ONLY_MODERN =
  'This tool runs only as a task: call it with the io.modelcontextprotocol/tasks extension declared.';

/**
 * How many of the servers that share one app object keep their tool built (about 4 KB each for a
 * one-input app): as many as the resolver keeps apps by default (`appCacheMaxEntries`).
 */
const TOOLS_PER_APP = 1000;

/**
 * Caches tools by app object and server revision (id, `updatedAt`, description), so the hot path
 * builds nothing and allocates nothing to find them. A tool lives as long as its app object: when
 * the host (or the resolver's app cache) lets an app go, its tools go with it. Many servers may
 * share one app object; past `TOOLS_PER_APP` of them, the one built longest ago goes first. A host
 * that returns a new app object per request still gets correct tools, only rebuilt each time.
 */
export function createToolCache(
  toolName?: ToolNamer,
  limits: FileInputLimits = DEFAULT_FILE_INPUT_LIMITS,
): (app: HostApp, server: ToolFace) => AppTool {
  interface Built {
    updatedAt: number | undefined;
    description: string;
    toolName: string | undefined;
    tool: AppTool;
  }
  // Per app object, the latest revision seen of each of its servers, in the order they were built.
  const byApp = new WeakMap<HostApp, Map<string, Built>>();
  return (app, server) => {
    const updatedAt: number | undefined = server.updatedAt?.getTime?.();
    let builds = byApp.get(app);
    if (!builds) {
      builds = new Map();
      byApp.set(app, builds);
    }
    const built = builds.get(server.id);
    if (
      built &&
      Object.is(built.updatedAt, updatedAt) &&
      built.description === server.description &&
      built.toolName === server.toolName
    )
      return built.tool;
    const tool = buildTool(app, server, toolName, limits);
    // Re-inserted, a server moves to the end: the first key is the one built longest ago.
    builds.delete(server.id);
    if (builds.size >= TOOLS_PER_APP) builds.delete(builds.keys().next().value as string);
    builds.set(server.id, { updatedAt, description: server.description, toolName: server.toolName, tool });
    return tool;
  };
}
