import type { Router } from 'express';
import type {
  NewToolset,
  ToolsetChanges,
  ToolsetMember,
  ToolsetRecord,
  ToolsetStore,
} from '../store/toolsets/types.js';
import type { ServerStore } from '../store/types.js';
import { formVariables } from '../tool/input-form.js';
import type { LoadApp } from '../types/index.js';
import { auditEntry, changedFields } from './audit.js';
import { validateBody } from './bodies.js';
import type { ConsoleAccess, ConsoleErrorContext } from './console-options.js';
import type { ConsoleCall, ConsoleReply, consoleEndpoint } from './endpoint.js';
import { ConsoleError, type FieldErrors } from './errors.js';
import { readJsonBody } from './read-body.js';
import { methodNotAllowed } from './reply.js';
import { storeWithDeadline } from './store-deadline.js';
import { CreateToolsetSchema, type MemberBody, UpdateToolsetSchema } from './toolset-bodies.js';
import { type ConsoleToolset, toConsoleToolset } from './toolset-json.js';

type Endpoint = ReturnType<typeof consoleEndpoint<ConsoleErrorContext>>;

/** What the toolset routes need of the console. */
export interface ToolsetRoutesConfig {
  store: ServerStore;
  loadApp: LoadApp;
  mcpPath: (serverCode: string) => string;
  maxToolsetApps: number;
  resolveTimeoutMs: number;
}

const TOOLSET_METHODS = ['create', 'get', 'list', 'update', 'appServers'] as const;

/**
 * The toolset routes of `mcpConsole` (docs/toolsets.md): `/toolsets` and `/toolsets/:id`, scoped to
 * the caller's tenant (another tenant's toolset is "not found"), bodies checked field by field.
 * A store without toolsets (a host's own) gets none of these routes.
 */
export function mountToolsets(router: Router, endpoint: Endpoint, config: ToolsetRoutesConfig): void {
  if (!config.store.toolsets) return;
  const toolsets: ToolsetStore = storeWithDeadline(
    config.store.toolsets,
    TOOLSET_METHODS,
    config.resolveTimeoutMs,
  );
  const { store } = config;
  const show = (toolset: ToolsetRecord): ConsoleToolset => toConsoleToolset(toolset, config.mcpPath);

  async function ownToolset(call: ConsoleCall<ConsoleErrorContext>): Promise<ToolsetRecord> {
    const id = call.req.params.id as string;
    call.context.serverId = id;
    const toolset = await toolsets.get(id);
    if (!toolset || toolset.tenantId !== call.access.tenantId) throw toolsetNotFound();
    return toolset;
  }

  /** The body's apps as members, or a 400 naming each bad one: unknown, twice, a name taken, too many. */
  async function membersOf(apps: MemberBody[], access: ConsoleAccess): Promise<ToolsetMember[]> {
    const fields: FieldErrors = {};
    if (apps.length > config.maxToolsetApps) fields.apps = `must list at most ${config.maxToolsetApps} apps`;
    const seenApps = new Map<string, number>();
    const seenNames = new Map<string, number>();
    apps.forEach((member, index) => {
      const first = seenApps.get(member.app_id);
      if (first !== undefined) fields[`apps.${index}.app_id`] = `lists the same app as apps.${first}`;
      else seenApps.set(member.app_id, index);
      if (!member.tool_name) return;
      const named = seenNames.get(member.tool_name);
      if (named !== undefined)
        fields[`apps.${index}.tool_name`] = `is already the tool name of apps.${named}`;
      else seenNames.set(member.tool_name, index);
    });
    if (Object.keys(fields).length === 0) {
      const apps_ = await Promise.all(apps.map((member) => config.loadApp(member.app_id, access.tenantId)));
      apps.forEach((member, index) => {
        const app = apps_[index];
        if (!app) {
          fields[`apps.${index}.app_id`] = 'is not an app of this tenant';
          return;
        }
        const variables = formVariables(app);
        for (const key of Object.keys(member.parameters ?? {})) {
          if (!variables.has(key))
            fields[`apps.${index}.parameters.${key}`] = 'is not an input variable of the app';
        }
      });
    }
    if (Object.keys(fields).length > 0) throw invalid(fields);
    return apps.map(toMember);
  }

  const list = async ({
    access,
  }: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<{ data: ConsoleToolset[] }>> => ({
    status: 200,
    body: { data: (await toolsets.list(access.tenantId)).map(show) },
  });

  const create = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleToolset>> => {
    const body = validateBody(CreateToolsetSchema, await readJsonBody(call.req, call.res));
    const allPublished = body.all_published === true;
    if (allPublished && body.apps && body.apps.length > 0) throw listedAndAll();
    const input: NewToolset = {
      tenantId: call.access.tenantId,
      name: body.name,
      description: body.description ?? '',
      allPublished,
      members: allPublished ? [] : await membersOf(body.apps ?? [], call.access),
      authMode: body.auth_mode ?? 'code',
      status: body.status ?? 'active',
    };
    const details = {
      name: input.name,
      auth_mode: input.authMode,
      status: input.status,
      all_published: allPublished,
      apps: input.members.map((member) => member.appId),
    };
    const toolset = await toolsets.create(input, auditEntry(call.access, 'toolset.create', details));
    call.context.serverId = toolset.id;
    return { status: 201, body: show(toolset) };
  };

  const get = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleToolset>> => ({
    status: 200,
    body: show(await ownToolset(call)),
  });

  const update = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleToolset>> => {
    const current = await ownToolset(call);
    const body = validateBody(UpdateToolsetSchema, await readJsonBody(call.req, call.res));
    const allPublished = body.all_published ?? current.allPublished;
    if (allPublished && body.apps && body.apps.length > 0) throw listedAndAll();
    const changes: ToolsetChanges = {};
    if (body.name) changes.name = body.name;
    if (body.description !== undefined && body.description !== null) changes.description = body.description;
    if (body.status) changes.status = body.status;
    if (body.auth_mode) changes.authMode = body.auth_mode;
    if (body.all_published !== undefined && body.all_published !== null)
      changes.allPublished = body.all_published;
    // An `all_published` toolset lists no apps of its own: it follows what the tenant publishes.
    if (allPublished) changes.members = [];
    else if (body.apps) changes.members = await membersOf(body.apps, call.access);
    const details = changedFields(
      {
        name: current.name,
        description: current.description,
        status: current.status,
        auth_mode: current.authMode,
        all_published: current.allPublished,
        apps: current.members.map((member) => member.appId),
      },
      {
        name: changes.name,
        description: changes.description,
        status: changes.status,
        auth_mode: changes.authMode,
        all_published: changes.allPublished,
        apps: changes.members?.map((member) => member.appId),
      },
    );
    const audit = auditEntry(call.access, 'toolset.update', details, current.id);
    const updated = await toolsets.update(current.id, changes, audit);
    if (!updated) throw toolsetNotFound();
    return { status: 200, body: show(updated) };
  };

  const refresh = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleToolset>> => {
    const current = await ownToolset(call);
    const audit = auditEntry(call.access, 'toolset.rotate', { name: current.name }, current.id);
    const server = await store.rotateCode(current.id, audit);
    if (!server) throw toolsetNotFound();
    const rotated = await toolsets.get(current.id);
    if (!rotated) throw toolsetNotFound();
    // A store that keeps codes hashed knows the new code only in the record rotateCode returned.
    const withCode: ToolsetRecord = { ...rotated, serverCode: server.serverCode };
    if (server.codeHint !== undefined) withCode.codeHint = server.codeHint;
    return { status: 200, body: show(withCode) };
  };

  const remove = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<never>> => {
    const current = await ownToolset(call);
    const audit = auditEntry(call.access, 'toolset.delete', { name: current.name }, current.id);
    if (!(await store.deleteServer(current.id, audit))) throw toolsetNotFound();
    return { status: 204 };
  };

  router
    .route('/toolsets')
    .get(endpoint('list-toolsets', 'read', list))
    .post(endpoint('create-toolset', 'edit', create))
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/toolsets/:id')
    .get(endpoint('get-toolset', 'read', get))
    .put(endpoint('update-toolset', 'edit', update))
    .delete(endpoint('delete-toolset', 'edit', remove))
    .all(methodNotAllowed('GET, PUT, DELETE'));
  router
    .route('/toolsets/:id/refresh')
    .post(endpoint('rotate-toolset', 'edit', refresh))
    .all(methodNotAllowed('POST'));
}

function toMember(body: MemberBody): ToolsetMember {
  const member: ToolsetMember = { appId: body.app_id };
  if (body.tool_name) member.toolName = body.tool_name;
  if (body.description) member.description = body.description;
  if (body.parameters) member.parameters = body.parameters;
  if (body.annotations) member.annotations = body.annotations;
  if (body.task_support) member.taskSupport = body.task_support;
  return member;
}

function invalid(fields: FieldErrors): ConsoleError {
  const problems = Object.entries(fields).map(([field, message]) => `${field} ${message}`);
  return new ConsoleError('invalid_request', `Invalid request body: ${problems.join('; ')}`, fields);
}

const listedAndAll = () =>
  invalid({ apps: 'must be empty when all_published is true: the toolset then serves every published app' });

const toolsetNotFound = () => new ConsoleError('not_found', 'toolset not found');
