import { z } from 'zod';
import type { EndpointReply, EndpointRequest } from './context.js';
import type { EndpointOptions } from './endpoint.js';
import { parseMessage } from './endpoint.js';
import {
  hasEnvelopeClaim,
  headerValue,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
} from './era.js';
import { McpError } from './errors.js';
import { describeIssues, type RequestId } from './messages.js';
import { clientNameOf, type ToolMethods } from './methods.js';
import { isPlainRecord } from './plain.js';
import type { ServingTarget } from './server.js';
import { FIRST_MODERN_VERSION, isLegacyVersion, MODERN_VERSIONS, SUPPORTED_VERSIONS } from './versions.js';

/**
 * How long a client may reuse a `tools/list` or `server/discover` answer (MCP 2026-07-28
 * caching, SEP-2549). Console edits (description, parameters, rotation) reach clients within it.
 */
export const LIST_TTL_MS = 60_000;
/** Both answers depend on the secret code in the URL, so shared caches must not keep them. */
const CACHE_SCOPE = 'private';

/** The methods the modern era serves; every other one is 404 / -32601 (SPEC §3). */
const MODERN_METHODS = new Set(['server/discover', 'tools/list', 'tools/call']);
/** 2025 methods that 2026-07-28 removed: named as such in the 404, so a client knows why. */
const REMOVED_METHODS = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

const modernVersions = new Set<string>(MODERN_VERSIONS);

export interface ModernDeps extends EndpointOptions {
  methods: ToolMethods;
  resolveTarget: (request: EndpointRequest, id: RequestId | null) => Promise<ServingTarget>;
  guarded: <T>(
    work: () => T | Promise<T>,
    id: RequestId | null,
    phase: 'dispatch',
    target?: ServingTarget,
  ) => Promise<T>;
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
const logLevels = new Set<unknown>(LOG_LEVELS);

const missingOr = (problem: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'missing' : problem;

/**
 * The 2026-07-28 per-request envelope (`RequestMetaObject`): the version and the client's
 * capabilities are required; `clientInfo` is a SHOULD but must be well formed when present.
 */
const EnvelopeSchema = z.object({
  _meta: z.looseObject(
    {
      [META_PROTOCOL_VERSION]: z.string({ error: missingOr('must be a string') }),
      [META_CLIENT_CAPABILITIES]: z.record(z.string(), z.unknown(), {
        error: missingOr('must be an object'),
      }),
      [META_CLIENT_INFO]: z
        .looseObject(
          { name: z.string({ error: 'must be a string' }), version: z.string({ error: 'must be a string' }) },
          { error: 'must be an object' },
        )
        .optional(),
      [META_LOG_LEVEL]: z.enum(LOG_LEVELS, { error: 'must be a log level' }).optional(),
    },
    { error: missingOr('must be an object') },
  ),
});

type Envelope = z.infer<typeof EnvelopeSchema>['_meta'];

/** The notification envelope only needs its version to be readable. */
const NotificationEnvelopeSchema = z.object({
  _meta: z.looseObject({ [META_PROTOCOL_VERSION]: z.string({ error: missingOr('must be a string') }) }),
});

/**
 * One stateless 2026-07-28 request (SPEC §3). The checks run in the order of the reference
 * implementation's validation ladder, all before the server code is looked up:
 * envelope (400 / -32602), headers that disagree with the body (400 / -32020), the version
 * (400 / -32022), headers that are missing (400 / -32020), the method (404 / -32601).
 * Every result says `resultType: "complete"` and names the server in `_meta`.
 */
export async function handleModern(request: EndpointRequest, deps: ModernDeps): Promise<EndpointReply> {
  const message = parseMessage(request.payload);
  const { method } = message;
  const id = message.id ?? null;
  const params = message.params ?? {};
  const headers = {
    protocolVersion: headerValue(request.headers.protocolVersion),
    method: headerValue(request.headers.method),
    name: headerValue(request.headers.name),
  };

  if (id === null) {
    if (!method.startsWith('notifications/')) {
      throw new McpError('invalidRequest', 'Invalid request: request id is required');
    }
    const version = hasEnvelopeClaim(message)
      ? parseEnvelope(NotificationEnvelopeSchema, params, null)[META_PROTOCOL_VERSION]
      : (headers.protocolVersion ?? FIRST_MODERN_VERSION); // no claim: the header chose this era
    crossCheck(headers, version, method, null);
    checkVersion(version, null);
    const target = await deps.resolveTarget(request, null);
    if (method === 'notifications/cancelled') deps.methods.cancel(target, params);
    return { status: 202 };
  }

  if (method === 'initialize' && !hasEnvelopeClaim(message)) {
    // A 2025 handshake that carries a 2026 header: the header and the body name different eras.
    throw headerMismatch(
      `initialize is the legacy handshake and cannot be sent with MCP-Protocol-Version ${headers.protocolVersion}`,
      { header: 'MCP-Protocol-Version', received: headers.protocolVersion ?? null, expected: null },
      id,
    );
  }
  const envelope = parseEnvelope(EnvelopeSchema, params, id);
  const version = envelope[META_PROTOCOL_VERSION];
  crossCheck(headers, version, method, id);
  checkVersion(version, id);
  requireHeaders(headers, version, method, params, id);
  if (!MODERN_METHODS.has(method)) {
    const why = REMOVED_METHODS.has(method) ? ` (removed in protocol ${FIRST_MODERN_VERSION})` : '';
    throw new McpError('modernMethodNotFound', `Method not found: ${method}${why}`, undefined, id);
  }

  const target = await deps.resolveTarget(request, id);
  const result = await deps.guarded(
    () => dispatch(id, method, params, version, envelope, target, request, deps),
    id,
    'dispatch',
    target,
  );
  const meta = { [META_SERVER_INFO]: deps.serverInfo };
  return {
    status: 200,
    body: { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result, _meta: meta } },
  };
}

async function dispatch(
  id: RequestId,
  method: string,
  params: Record<string, unknown>,
  version: string,
  envelope: Envelope,
  target: ServingTarget,
  request: EndpointRequest,
  deps: ModernDeps,
): Promise<Record<string, unknown>> {
  switch (method) {
    case 'server/discover': {
      const discovered: Record<string, unknown> = {
        supportedVersions: SUPPORTED_VERSIONS,
        capabilities: { tools: {} },
      };
      if (target.server.description) discovered.instructions = target.server.description;
      return { ...discovered, ttlMs: LIST_TTL_MS, cacheScope: CACHE_SCOPE };
    }
    case 'tools/list':
      // Exactly one tool per server, so the order is the same on every request (2026-07-28 SHOULD).
      return {
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
        // SPEC §3: the client closing the response stream is the cancellation of this call.
        onClosed: request.onClosed,
        request: request.request,
        clientName: clientNameOf(envelope[META_CLIENT_INFO]),
      });
      return { ...outcome };
    }
  }
}

function parseEnvelope<S extends typeof EnvelopeSchema | typeof NotificationEnvelopeSchema>(
  schema: S,
  params: Record<string, unknown>,
  id: RequestId | null,
): z.infer<S>['_meta'] {
  if (isWellFormedEnvelope(params._meta)) return params._meta;
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data._meta as z.infer<S>['_meta'];
  const { text, issues } = describeIssues(parsed.error);
  throw new McpError(
    'modernInvalidParams',
    `Invalid params: the ${FIRST_MODERN_VERSION} request envelope is not valid: ${text}`,
    { issues },
    id,
  );
}

/**
 * The envelope every well-behaved client sends, recognised without zod on the hot path: it accepts
 * nothing `EnvelopeSchema` refuses. Anything else goes through the schema, which words the problem.
 */
function isWellFormedEnvelope(meta: unknown): meta is Envelope {
  if (!isPlainRecord(meta)) return false;
  const info = meta[META_CLIENT_INFO];
  const level = meta[META_LOG_LEVEL];
  return (
    typeof meta[META_PROTOCOL_VERSION] === 'string' &&
    isPlainRecord(meta[META_CLIENT_CAPABILITIES]) &&
    (info === undefined ||
      (isPlainRecord(info) && typeof info.name === 'string' && typeof info.version === 'string')) &&
    (level === undefined || logLevels.has(level))
  );
}

interface ModernHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

/** MCP 2026-07-28 transports: a header that is present must agree with the body. */
function crossCheck(headers: ModernHeaders, version: string, method: string, id: RequestId | null): void {
  if (headers.protocolVersion !== undefined && headers.protocolVersion !== version) {
    throw headerMismatch(
      `MCP-Protocol-Version header ${headers.protocolVersion} does not match the request's protocol version ${version}`,
      { header: 'MCP-Protocol-Version', received: headers.protocolVersion, expected: version },
      id,
    );
  }
  if (headers.method !== undefined && headers.method !== method) {
    throw headerMismatch(
      `Mcp-Method header ${headers.method} does not match the request method ${method}`,
      { header: 'Mcp-Method', received: headers.method, expected: method },
      id,
    );
  }
}

/** MCP 2026-07-28: an unknown or unsupported version is refused with every version we speak. */
function checkVersion(version: string, id: RequestId | null): void {
  if (modernVersions.has(version)) return;
  const hint = isLegacyVersion(version)
    ? ` (${version} is spoken through the initialize handshake, without a per-request _meta envelope)`
    : '';
  throw new McpError(
    'modernUnsupportedVersion',
    `Unsupported protocol version: ${version}${hint}`,
    { supported: SUPPORTED_VERSIONS, requested: version },
    id,
  );
}

/**
 * SEP-2243 standard headers: `MCP-Protocol-Version` and `Mcp-Method` on every request, `Mcp-Name`
 * on `tools/call` whenever the body names a tool.
 */
function requireHeaders(
  headers: ModernHeaders,
  version: string,
  method: string,
  params: Record<string, unknown>,
  id: RequestId,
): void {
  if (headers.protocolVersion === undefined) {
    throw headerMismatch(
      'Missing MCP-Protocol-Version header',
      { header: 'MCP-Protocol-Version', received: null, expected: version },
      id,
    );
  }
  if (headers.method === undefined) {
    throw headerMismatch(
      'Missing Mcp-Method header',
      { header: 'Mcp-Method', received: null, expected: method },
      id,
    );
  }
  if (method !== 'tools/call' || typeof params.name !== 'string') return;
  const toolName = params.name;
  if (headers.name === undefined) {
    throw headerMismatch(
      'Missing Mcp-Name header',
      { header: 'Mcp-Name', received: null, expected: toolName },
      id,
    );
  }
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === undefined) {
    throw headerMismatch(
      'Mcp-Name header has an invalid =?base64?…?= value',
      { header: 'Mcp-Name', received: headers.name, expected: toolName },
      id,
    );
  }
  if (decoded !== toolName) {
    throw headerMismatch(
      `Mcp-Name header ${headers.name} does not match the tool name ${toolName}`,
      { header: 'Mcp-Name', received: headers.name, expected: toolName },
      id,
    );
  }
}

const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * SEP-2243 value encoding: a value that is not plain ASCII travels as `=?base64?<UTF-8 bytes>?=`.
 * Anything else is taken literally. `undefined` for a sentinel whose payload is not canonical
 * Base64 of valid UTF-8.
 */
function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const payload = value.slice('=?base64?'.length, -'?='.length);
  if (!BASE64_CANONICAL.test(payload)) return undefined;
  try {
    return utf8.decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

interface MismatchData {
  header: 'MCP-Protocol-Version' | 'Mcp-Method' | 'Mcp-Name';
  /** The header's value, `null` when it was missing. */
  received: string | null;
  /** The value the body implies, `null` when no value of that header fits the request. */
  expected: string | null;
}

function headerMismatch(text: string, data: MismatchData, id: RequestId | null): McpError {
  return new McpError('modernHeaderMismatch', `Header mismatch: ${text}`, data, id);
}
