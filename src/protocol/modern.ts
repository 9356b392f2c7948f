import type { EndpointReply, EndpointRequest } from './context.js';
import type { EndpointOptions } from './endpoint.js';
import { parseMessage } from './endpoint.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
} from './era.js';
import { McpError } from './errors.js';
import type { RequestId } from './messages.js';
import { clientNameOf, type ToolMethods } from './methods.js';
import type { ServingTarget } from './server.js';
import { MODERN_VERSIONS, SUPPORTED_VERSIONS } from './versions.js';

/** How long a client may reuse a `tools/list` or `server/discover` answer (MCP 2026-07-28 caching). */
export const LIST_TTL_MS = 60_000;
/** The list depends on the secret code in the URL, so shared caches must not keep it. */
const CACHE_SCOPE = 'private';

export interface ModernDeps extends EndpointOptions {
  methods: ToolMethods;
  resolveTarget: (request: EndpointRequest, id: RequestId | null) => Promise<ServingTarget>;
  guarded: <T>(
    work: () => Promise<T>,
    id: RequestId | null,
    phase: 'dispatch',
    target?: ServingTarget,
  ) => Promise<T>;
}

const modernVersions = new Set<string>(MODERN_VERSIONS);

/**
 * One stateless 2026-07-28 request (SPEC §3): `_meta` and the `Mcp-*` headers are checked against
 * the body before anything is resolved; every result says `resultType: "complete"`.
 */
export async function handleModern(request: EndpointRequest, deps: ModernDeps): Promise<EndpointReply> {
  const message = parseMessage(request.payload);
  const id = message.id ?? null;
  const params = message.params ?? {};
  if (id === null) {
    if (!message.method.startsWith('notifications/')) {
      throw new McpError('invalidRequest', 'Invalid request: request id is required');
    }
    const target = await deps.resolveTarget(request, null);
    if (message.method === 'notifications/cancelled') deps.methods.cancel(target, params);
    return { status: 202 };
  }

  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const version = meta[META_PROTOCOL_VERSION];
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (typeof version !== 'string' || typeof capabilities !== 'object' || capabilities === null) {
    throw new McpError(
      'modernInvalidParams',
      `Invalid params: _meta must carry ${META_PROTOCOL_VERSION} and ${META_CLIENT_CAPABILITIES}`,
      undefined,
      id,
    );
  }
  checkHeaders(request, message.method, version, params, id);
  if (!modernVersions.has(version)) {
    throw new McpError(
      'modernUnsupportedVersion',
      `Unsupported protocol version: ${version}`,
      {
        supported: SUPPORTED_VERSIONS,
        requested: version,
      },
      id,
    );
  }
  if (!['server/discover', 'tools/list', 'tools/call'].includes(message.method)) {
    throw new McpError('modernMethodNotFound', `Method not found: ${message.method}`, undefined, id);
  }

  const target = await deps.resolveTarget(request, id);
  const result = await deps.guarded(
    async (): Promise<Record<string, unknown>> => {
      switch (message.method) {
        case 'server/discover':
          return discover(target, deps);
        case 'tools/list':
          return {
            resultType: 'complete',
            ...deps.methods.listTools({ target, protocolVersion: version }),
            ttlMs: LIST_TTL_MS,
            cacheScope: CACHE_SCOPE,
          };
        default: {
          const outcome = await deps.methods.callTool({
            id,
            params,
            protocolVersion: version,
            target,
            closed: request.closed,
            request: request.request,
            clientName: clientNameOf(meta[META_CLIENT_INFO]),
          });
          return { resultType: 'complete', ...outcome };
        }
      }
    },
    id,
    'dispatch',
    target,
  );
  return { status: 200, body: { jsonrpc: '2.0', id, result } };
}

function discover(target: ServingTarget, deps: ModernDeps): Record<string, unknown> {
  const result: Record<string, unknown> = {
    resultType: 'complete',
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: { tools: {} },
  };
  if (target.server.description) result.instructions = target.server.description;
  result.ttlMs = LIST_TTL_MS;
  result.cacheScope = CACHE_SCOPE;
  result._meta = { [META_SERVER_INFO]: deps.serverInfo };
  return result;
}

/** MCP 2026-07-28 transports: the routing headers must be present and agree with the body (-32020). */
function checkHeaders(
  request: EndpointRequest,
  method: string,
  version: string,
  params: Record<string, unknown>,
  id: RequestId,
): void {
  const { headers } = request;
  const mismatch = (text: string) => new McpError('modernHeaderMismatch', text, undefined, id);
  if (headers.protocolVersion === undefined) throw mismatch('Missing MCP-Protocol-Version header');
  if (headers.protocolVersion !== version) {
    throw mismatch('MCP-Protocol-Version header does not match params._meta protocol version');
  }
  if (headers.method === undefined) throw mismatch('Missing Mcp-Method header');
  if (headers.method !== method) throw mismatch('Mcp-Method header does not match the request method');
  if (method === 'tools/call') {
    if (headers.name === undefined) throw mismatch('Missing Mcp-Name header');
    if (headers.name !== params.name) throw mismatch('Mcp-Name header does not match the tool name');
  }
}
