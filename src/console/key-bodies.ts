import { z } from 'zod';
import type { CallerKey } from '../store/keys/types.js';

/** The longest grace a rotation may give the old secret: 7 days (docs/keys.md). */
export const MAX_GRACE_SECONDS = 7 * 24 * 60 * 60;
/** A key's name is shown in lists and names its end user; 255 is the end user name's column. */
const MAX_NAME_LENGTH = 255;

const body = <T extends z.ZodRawShape>(shape: T) =>
  z.object(shape, { error: 'the request body must be a JSON object' });

/** `POST /servers/:id/keys`: make a key. `expires_at` in unix seconds, in the future. */
export const NewKeyBodySchema = body({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`),
  expires_at: z
    .int({ error: 'must be a whole number of unix seconds' })
    .positive('must be a whole number of unix seconds')
    .refine((seconds) => seconds * 1000 > Date.now(), 'must be in the future')
    .nullish(),
  daily_call_quota: z
    .int({ error: 'must be a whole number' })
    .positive('must be at least 1')
    .max(2_147_483_647, 'must be at most 2147483647')
    .nullish(),
});

/** `POST /servers/:id/keys/:keyId/rotate`: how long the old secret keeps working, in seconds. */
export const RotateKeyBodySchema = body({
  grace_seconds: z
    .int({ error: 'must be a whole number of seconds' })
    .nonnegative('must not be negative')
    .max(MAX_GRACE_SECONDS, `must be at most ${MAX_GRACE_SECONDS} (7 days)`)
    .nullish(),
});

/** A key as the console shows it: never its secret nor its hash, except `key` where one is made. */
export interface ConsoleKey {
  id: string;
  name: string;
  prefix: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  grace_until: number | null;
  daily_call_quota: number | null;
  /** The secret, in the two replies that make one (creation, rotation), and never again. */
  key?: string;
}

const seconds = (date: Date | null) => (date === null ? null : Math.floor(date.getTime() / 1000));

export function toConsoleKey(key: CallerKey, secret?: string): ConsoleKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: seconds(key.createdAt) as number,
    expires_at: seconds(key.expiresAt),
    last_used_at: seconds(key.lastUsedAt),
    revoked_at: seconds(key.revokedAt),
    grace_until: seconds(key.graceUntil),
    daily_call_quota: key.dailyCallQuota,
    ...(secret === undefined ? {} : { key: secret }),
  };
}
