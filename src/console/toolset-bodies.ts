import { z } from 'zod';
import { TOOL_NAME_PATTERN } from '../tool/name.js';
import { codePointLength } from '../util/code-points.js';
import { AnnotationsField } from './annotations.js';
import { description, requiredOr } from './bodies.js';

/** The longest toolset name, in characters: what an MCP client shows as the server's name. */
export const MAX_TOOLSET_NAME_LENGTH = 255;

const name = z
  .string({ error: requiredOr('must be a string') })
  .trim()
  .min(1, 'must not be empty')
  .refine(
    (text) => codePointLength(text) <= MAX_TOOLSET_NAME_LENGTH,
    `must be at most ${MAX_TOOLSET_NAME_LENGTH} characters`,
  );

/** One app of a toolset (docs/toolsets.md); each field absent or null takes the app's own server's. */
const Member = z.object(
  {
    app_id: z.string({ error: requiredOr('must be a string') }).min(1, 'must not be empty'),
    tool_name: z
      .string({ error: 'must be a string' })
      .regex(TOOL_NAME_PATTERN, 'must be 1 to 128 of A-Z a-z 0-9 _ - . (the MCP tool name rule)')
      .nullish(),
    description,
    parameters: z
      .record(z.string(), z.string({ error: 'must be a string' }), {
        error: 'must be an object of strings',
      })
      .nullish(),
    annotations: AnnotationsField,
    task_support: z
      .enum(['forbidden', 'optional', 'required'], { error: 'must be forbidden, optional or required' })
      .nullish(),
  },
  { error: 'must be an object with an app_id' },
);

export type MemberBody = z.output<typeof Member>;

const fields = {
  description,
  apps: z.array(Member, { error: 'must be a list of apps' }).nullish(),
  all_published: z.boolean({ error: 'must be true or false' }).nullish(),
  auth_mode: z.enum(['code', 'oauth', 'key'], { error: 'must be code, oauth or key' }).nullish(),
  status: z.enum(['active', 'inactive'], { error: 'must be active or inactive' }).nullish(),
};

// Unknown body fields are dropped, as the other console bodies drop them.
/** `POST /toolsets`. */
export const CreateToolsetSchema = z.object(
  { name, ...fields },
  { error: 'the request body must be a JSON object' },
);

/** `PUT /toolsets/:id`: absent or null fields are kept; `apps` replaces the list. */
export const UpdateToolsetSchema = z.object(
  { name: name.nullish(), ...fields },
  { error: 'the request body must be a JSON object' },
);
