import { LRUCache } from 'lru-cache';
import type { ToolFeatures } from '../tool/features.js';
import type { FileInputLimits } from '../tool/file-input.js';
import { type AppTool, createToolCache, defaultToolName, type ToolNamer } from '../tool/tool.js';
import type { HostApp, ResolvedMember, ServerRecord, TaskSupport } from '../types/index.js';
import { SerializedResult } from './reply.js';

/** One tool a server serves: its name, the app it runs, the tool built from both. */
export interface ServedTool {
  readonly name: string;
  readonly app: HostApp;
  readonly tool: AppTool;
  /** Whether it runs as a task (docs/tasks.md). */
  readonly taskSupport: TaskSupport;
}

/**
 * What a server serves, in list order: a one-app server's one tool, or a toolset's (docs/toolsets.md).
 * `tools/list`, `tools/call`, tasks and asking all look a tool up here, in the list the caller
 * may see (`canUseTool`), so that they never disagree.
 */
export class ToolList {
  readonly #byName: ReadonlyMap<string, ServedTool> | undefined;
  /** The `tools/list` result per protocol revision, made and serialized once. */
  readonly #results = new Map<ToolFeatures, SerializedResult>();

  constructor(readonly tools: readonly ServedTool[]) {
    // A list of one is looked up without a map: the one-app hot path allocates nothing more.
    if (tools.length > 1) this.#byName = new Map(tools.map((served) => [served.name, served]));
  }

  /** The tool called `name`, or `undefined`: an unknown tool (docs/http-contract.md, row 18). */
  find(name: unknown): ServedTool | undefined {
    if (this.#byName) return typeof name === 'string' ? this.#byName.get(name) : undefined;
    const only = this.tools[0];
    return only !== undefined && only.name === name ? only : undefined;
  }

  /** The `tools/list` result for a revision's features. */
  listResult(features: ToolFeatures): SerializedResult {
    let result = this.#results.get(features);
    if (!result) {
      const tools = Object.freeze(this.tools.map((served) => served.tool.describe(features)));
      result = new SerializedResult(Object.freeze({ tools }));
      this.#results.set(features, result);
    }
    return result;
  }

  /** The tools `keep` says yes to; this list itself when it keeps them all, so its results stay cached. */
  filter(keep: readonly boolean[]): ToolList {
    return keep.every(Boolean) ? this : new ToolList(this.tools.filter((_, index) => keep[index]));
  }
}

/** A toolset's list as last built, and what it was built from. */
interface BuiltToolset {
  members: readonly ResolvedMember[];
  updatedAt: number | undefined;
  apps: readonly (HostApp | null)[];
  list: ToolList;
}

/** How many toolsets keep their built list, beside the one-app servers' (kept as long as their apps). */
const TOOLSETS_KEPT = 1000;

/**
 * The lists of tools servers serve, each built once per revision: a one-app server's per app
 * object and server revision (the tool cache's), a toolset's per revision of the toolset
 * (`updatedAt`, which moves when its members or their servers change) and of its members' app
 * objects. Names are settled here, once per build: a member's `toolName`, else the name a one-app
 * server would give, with `_2`, `_3`, … on a clash, in member order, so that they are the same on
 * every request and every instance.
 */
export function createToolLists(toolName: ToolNamer | undefined, limits: FileInputLimits) {
  const toolFor = createToolCache(toolName, limits);
  const oneApp = new WeakMap<AppTool, ToolList>();
  const byMembers = new WeakMap<readonly ResolvedMember[], ToolList>();
  const toolsets = new LRUCache<string, BuiltToolset>({ max: TOOLSETS_KEPT });

  function ofApp(server: ServerRecord, app: HostApp): ToolList {
    const tool = toolFor(app, server);
    let list = oneApp.get(tool);
    if (!list) {
      list = new ToolList([{ name: tool.name, app, tool, taskSupport: server.taskSupport ?? 'optional' }]);
      oneApp.set(tool, list);
    }
    return list;
  }

  function ofToolset(server: ServerRecord, members: readonly ResolvedMember[]): ToolList {
    const cached = byMembers.get(members);
    if (cached) return cached;
    const updatedAt = server.updatedAt?.getTime?.();
    const apps = members.map((member) => member.app);
    const built = toolsets.get(server.id);
    if (built && Object.is(built.updatedAt, updatedAt) && sameApps(built.apps, apps)) {
      byMembers.set(members, built.list);
      return built.list;
    }
    const list = new ToolList(buildMembers(server, members));
    toolsets.set(server.id, { members, updatedAt, apps, list });
    byMembers.set(members, list);
    return list;
  }

  function buildMembers(server: ServerRecord, members: readonly ResolvedMember[]): ServedTool[] {
    const present = members.filter(
      (member): member is ResolvedMember & { app: HostApp } => member.app !== null,
    );
    const names = uniqueNames(
      present.map((member) =>
        member.toolName === undefined
          ? { name: defaultToolName(member.app, toolName), given: false }
          : { name: member.toolName, given: true },
      ),
    );
    const served: ServedTool[] = [];
    present.forEach((member, index) => {
      // Unavailable apps keep their names, so that the others' do not move while one is down.
      if (member.app.available === false) return;
      const name = names[index] as string;
      const face = {
        // One revision per toolset and app: the tool cache keeps a member's tool while it is the same.
        id: `${server.id}\n${member.app.id}`,
        ...(server.updatedAt && { updatedAt: server.updatedAt }),
        description: member.description,
        parameters: member.parameters,
        ...(member.annotations && { annotations: member.annotations }),
        ...(member.taskSupport && { taskSupport: member.taskSupport }),
        toolName: name,
      };
      const tool = toolFor(member.app, face);
      served.push({ name, app: member.app, tool, taskSupport: member.taskSupport ?? 'optional' });
    });
    return served;
  }

  return {
    /** The list a server that may serve (`checkServing`) serves. */
    listOf(
      server: ServerRecord,
      app: HostApp | null,
      members: readonly ResolvedMember[] | undefined,
    ): ToolList {
      if (server.kind === 'toolset') return ofToolset(server, members ?? []);
      return ofApp(server, app as HostApp);
    },
  };
}

const sameApps = (a: readonly (HostApp | null)[], b: readonly (HostApp | null)[]): boolean =>
  a.length === b.length && a.every((app, index) => app === b[index]);

/** The longest a tool name may be (MCP 2025-11-25 "Tool names"). */
const MAX_NAME = 128;

/**
 * The names, unique: a given name (`tool_name`) keeps it, the first of equal names keeps it, and
 * each clash after it takes the first free `_2`, `_3`, … suffix.
 */
export function uniqueNames(names: readonly { name: string; given: boolean }[]): string[] {
  const taken = new Set<string>();
  const settled: (string | undefined)[] = names.map(({ name, given }) => {
    if (!given || taken.has(name)) return undefined;
    taken.add(name);
    return name;
  });
  return names.map(({ name }, index) => {
    const fixed = settled[index];
    if (fixed !== undefined) return fixed;
    let unique = name;
    for (let n = 2; taken.has(unique); n++) {
      const suffix = `_${n}`;
      unique = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    }
    taken.add(unique);
    return unique;
  });
}
