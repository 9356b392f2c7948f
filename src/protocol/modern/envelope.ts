import { z } from 'zod';
import { McpError } from '../../errors/mcp-error.js';
import { isPlainRecord } from '../../util/plain-object.js';
import { FIRST_MODERN_VERSION } from '../../versions.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../era.js';
import { describeIssues, type RequestId } from '../messages.js';

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
const logLevels = new Set<unknown>(LOG_LEVELS);

const missingOr = (problem: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'missing' : problem;

/**
 * The 2026-07-28 per-request envelope (`RequestMetaObject`): the version and the client's
 * capabilities are required; `clientInfo` is a SHOULD but must be well formed when present.
 */
export const EnvelopeSchema = z.object({
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

export type Envelope = z.infer<typeof EnvelopeSchema>['_meta'];

/** The notification envelope only needs its version to be readable. */
export const NotificationEnvelopeSchema = z.object({
  _meta: z.looseObject({ [META_PROTOCOL_VERSION]: z.string({ error: missingOr('must be a string') }) }),
});

/** A request's envelope, or 400 / -32602 naming what is wrong with it. */
export function parseEnvelope<S extends typeof EnvelopeSchema | typeof NotificationEnvelopeSchema>(
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
