import { Router } from 'express';
import { RemoteMcpError } from '../../client/errors.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../../client/options.js';
import type { McpServerConnection, RemoteToolResult } from '../../client/types.js';
import { safeHook } from '../../express/hook.js';
import { EncryptionKeyError } from '../../store/providers/encryption.js';
import {
  type ToolProvider,
  type ToolProviderChanges,
  ToolProviderExistsError,
} from '../../store/providers/types.js';
import { auditEntry } from '../audit.js';
import { validateBody } from '../bodies.js';
import { type ConsoleCall, type ConsoleReply, consoleEndpoint } from '../endpoint.js';
import { ConsoleError } from '../errors.js';
import { readJsonBody } from '../read-body.js';
import { methodNotAllowed } from '../reply.js';
import { storeWithDeadline } from '../store-deadline.js';
import { type ConnectToolProviderOptions, connectToolProvider } from './connect.js';
import {
  CallToolSchema,
  CreateProviderSchema,
  ServerUrlSchema,
  UpdateProviderSchema,
} from './console-bodies.js';
import {
  type McpToolProviderConsoleOptions,
  parseToolProviderConsoleOptions,
  STORE_METHODS,
  type ToolProviderConsoleErrorContext,
} from './console-options.js';
import { headersForNewOrigin, providerChanges, sameHeaders, sameOrigin } from './edits.js';
import { MASK, maskUrl, unmaskHeaders } from './masking.js';
import { type ConsoleToolProvider, toConsoleProvider } from './provider-json.js';

export type { McpToolProviderConsoleOptions, ToolProviderConsoleErrorContext } from './console-options.js';
export type { ConsoleToolProvider } from './provider-json.js';

type Call = ConsoleCall<ToolProviderConsoleErrorContext>;
type Reply = ConsoleReply<ConsoleToolProvider | ConsoleToolProvider[] | RemoteToolResult>;

const KEY_MISMATCH =
  'The stored tool providers cannot be decrypted: the encryptionKey does not fit (they were encrypted with another key)';

/**
 * `app.use('/console/api/tool-providers', mcpToolProviderConsole({ store, authorize }))`: the admin
 * Router for the remote MCP servers a tenant's apps may call. Adding a provider, or changing its
 * URL or headers, connects to the server and lists its tools first: a server that does not work is
 * a 400 with the reason, and is not stored. URLs and header values are only ever shown masked, and
 * stored header values are never sent to another origin: an edit that moves the URL there gives
 * them again, in full.
 *
 * | route | does |
 * |---|---|
 * | `GET /` | the tenant's providers |
 * | `POST /` `{name, server_url, headers?, timeout_ms?, call_timeout_ms?}` | add (201) |
 * | `GET /:id` | one provider |
 * | `PUT /:id` `{name?, server_url?, headers?, timeout_ms?, call_timeout_ms?}` | edit |
 * | `DELETE /:id` | remove (204) |
 * | `POST /:id/tools/refresh` | list the tools again |
 * | `POST /:id/tools/:name/call` `{arguments?}` | try a tool: the `callTool` result |
 *
 * @example
 * ```ts
 * app.use(
 *   '/console/api/tool-providers',
 *   mcpToolProviderConsole({
 *     store: knexToolProviderStore(db, { encryptionKey }),
 *     // as for mcpConsole: null -> 401; canEdit false -> read only (writes answer 403)
 *     authorize: (req) => (req.user ? { tenantId: req.user.tenantId, canEdit: req.user.isAdmin } : null),
 *   }),
 * );
 * ```
 */
export function mcpToolProviderConsole(options: McpToolProviderConsoleOptions): Router {
  const config = parseToolProviderConsoleOptions(options);
  const store = storeWithDeadline(config.store, STORE_METHODS, config.resolveTimeoutMs);
  const { maxReplyBytes, maxTools, allowPrivateNetworks, isAllowedUrl } = config;
  const connectOptions = { maxReplyBytes, maxTools, allowPrivateNetworks, isAllowedUrl };
  const report = safeHook(config.onError);
  const usingServer = <T>(
    { context }: Call,
    provider: Reachable,
    use: (connection: McpServerConnection) => Promise<T>,
  ) => usingProvider(provider, connectOptions, (error) => report(error, context), use);
  const listRemoteTools = (call: Call, provider: Reachable) =>
    usingServer(call, provider, (connection) => connection.listTools());
  const endpoint = consoleEndpoint<ToolProviderConsoleErrorContext>({
    factory: 'mcpToolProviderConsole',
    authorize: config.authorize,
    onError: config.onError,
    forbidden: 'You are not allowed to edit tool providers',
    failure: (error) =>
      error instanceof EncryptionKeyError
        ? new ConsoleError('encryption_key_mismatch', KEY_MISMATCH)
        : undefined,
  });

  async function load({ req, access, context }: Call): Promise<ToolProvider> {
    const id = req.params.id as string;
    context.providerId = id;
    const provider = await store.getProvider(access.tenantId, id);
    if (!provider) throw providerNotFound();
    return provider;
  }

  async function assertNameFree(tenantId: string, name: string, exceptId?: string): Promise<void> {
    const existing = await store.getProviderByName(tenantId, name);
    if (existing && existing.id !== exceptId) throw providerExists();
  }

  const list = async ({ access }: Call): Promise<Reply> => ({
    status: 200,
    body: (await store.listProviders(access.tenantId)).map(toConsoleProvider),
  });

  const get = async (call: Call): Promise<Reply> => ({
    status: 200,
    body: toConsoleProvider(await load(call)),
  });

  const create = async (call: Call): Promise<Reply> => {
    const { req, res, access } = call;
    const body = validateBody(CreateProviderSchema, await readJsonBody(req, res));
    await assertNameFree(access.tenantId, body.name);
    const draft = {
      tenantId: access.tenantId,
      name: body.name,
      serverUrl: body.server_url,
      headers: body.headers ?? {},
      ...(body.timeout_ms === undefined ? {} : { timeoutMs: body.timeout_ms }),
      ...(body.call_timeout_ms === undefined ? {} : { callTimeoutMs: body.call_timeout_ms }),
    };
    // The store's defaults, so the first connection already uses them.
    const tools = await listRemoteTools(call, {
      timeoutMs: DEFAULT_TIMEOUT_MS,
      callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
      ...draft,
    });
    const audit = auditEntry(access, 'provider.create', {
      name: draft.name,
      // Header names only: their values are credentials.
      header_names: Object.keys(draft.headers),
      tools: tools.length,
    });
    const created = await store.createProvider({ ...draft, tools }, audit).catch(renameConflict);
    return { status: 201, body: toConsoleProvider(created) };
  };

  const update = async (call: Call): Promise<Reply> => {
    const { req, res, access } = call;
    const body = validateBody(UpdateProviderSchema, await readJsonBody(req, res));
    const current = await load(call);
    const changes: ToolProviderChanges = {};
    if (body.name !== undefined && body.name !== current.name) {
      await assertNameFree(access.tenantId, body.name, current.id);
      changes.name = body.name;
    }
    // The URL as shown (masked) or as stored is no change.
    const keptUrls = [current.serverUrl, maskUrl(current.serverUrl), MASK];
    if (body.server_url !== undefined && !keptUrls.includes(body.server_url)) {
      changes.serverUrl = validateBody(ServerUrlSchema, { server_url: body.server_url }).server_url;
    }
    if (changes.serverUrl !== undefined && !sameOrigin(changes.serverUrl, current.serverUrl)) {
      // Stored credentials never go to a host the editor picks (README, "Tool providers").
      changes.headers = headersForNewOrigin(body.headers, current.headers);
    } else if (body.headers !== undefined) {
      changes.headers = unmaskHeaders(body.headers, current.headers);
    }
    if (body.timeout_ms !== undefined) changes.timeoutMs = body.timeout_ms;
    if (body.call_timeout_ms !== undefined) changes.callTimeoutMs = body.call_timeout_ms;
    // A new address or new credentials must work before they replace the old ones.
    const reaches = changes.serverUrl !== undefined || !sameHeaders(changes.headers, current.headers);
    if (reaches) changes.tools = await listRemoteTools(call, { ...current, ...changes });
    const audit = auditEntry(access, 'provider.update', providerChanges(current, changes), current.id);
    const updated = await store
      .updateProvider(access.tenantId, current.id, changes, audit)
      .catch(renameConflict);
    if (!updated) throw providerNotFound();
    return { status: 200, body: toConsoleProvider(updated) };
  };

  const remove = async (call: Call): Promise<Reply> => {
    const provider = await load(call);
    const audit = auditEntry(call.access, 'provider.delete', { name: provider.name }, provider.id);
    if (!(await store.deleteProvider(call.access.tenantId, provider.id, audit))) {
      throw providerNotFound();
    }
    return { status: 204 };
  };

  const refresh = async (call: Call): Promise<Reply> => {
    const provider = await load(call);
    const tools = await listRemoteTools(call, provider);
    const audit = auditEntry(
      call.access,
      'provider.refresh',
      { name: provider.name, tools: tools.length },
      provider.id,
    );
    const updated = await store.updateProvider(call.access.tenantId, provider.id, { tools }, audit);
    if (!updated) throw providerNotFound();
    return { status: 200, body: toConsoleProvider(updated) };
  };

  const callTool = async (call: Call): Promise<Reply> => {
    const { req, res } = call;
    const body = validateBody(CallToolSchema, await readJsonBody(req, res));
    const provider = await load(call);
    const result = await usingServer(call, provider, (connection) =>
      connection.callTool(req.params.name as string, body.arguments ?? {}),
    );
    return { status: 200, body: result };
  };

  const router = Router();
  router
    .route('/')
    .get(endpoint('list', 'read', list))
    .post(endpoint('create', 'edit', create))
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/:id')
    .get(endpoint('get', 'read', get))
    .put(endpoint('update', 'edit', update))
    .delete(endpoint('delete', 'edit', remove))
    .all(methodNotAllowed('GET, PUT, DELETE'));
  router
    .route('/:id/tools/refresh')
    .post(endpoint('refresh', 'edit', refresh))
    .all(methodNotAllowed('POST'));
  router
    .route('/:id/tools/:name/call')
    .post(endpoint('call', 'edit', callTool))
    .all(methodNotAllowed('POST'));
  return router;
}

type Reachable = Pick<ToolProvider, 'serverUrl' | 'headers' | 'timeoutMs' | 'callTimeoutMs'>;

/**
 * Connects, uses, and always closes; a server that does not work is a 400 that says why. A server
 * that could not be reached is only "could not connect": which address was refused, or how the
 * connection failed, would map the host's network for whoever edits providers, so that goes to
 * `unreachable` (the console's `onError`) alone.
 */
async function usingProvider<T>(
  provider: Reachable,
  options: ConnectToolProviderOptions,
  unreachable: (error: RemoteMcpError) => void,
  use: (connection: McpServerConnection) => Promise<T>,
) {
  let connection: McpServerConnection | undefined;
  try {
    connection = await connectToolProvider(provider, options);
    return await use(connection);
  } catch (error) {
    if (error instanceof RemoteMcpError) {
      if (error.kind === 'unreachable') unreachable(error);
      const reason = error.kind === 'unreachable' ? 'could not connect' : error.reason;
      // Named by its masked URL: the reply must not reveal what the console never shows.
      throw new ConsoleError('mcp_server_error', `MCP server ${maskUrl(provider.serverUrl)}: ${reason}`);
    }
    throw error;
  } finally {
    await connection?.close();
  }
}

const providerNotFound = () => new ConsoleError('not_found', 'Tool provider not found');

const providerExists = () =>
  new ConsoleError('provider_exists', 'A tool provider with this name already exists');

function renameConflict(error: unknown): never {
  if (error instanceof ToolProviderExistsError) throw providerExists();
  throw error;
}
