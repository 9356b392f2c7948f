import { z } from 'zod';
import { urlCredentials } from '../../client/connect.js';
import { headerName, headerValue } from '../../client/options.js';

const name = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters');

const serverUrl = z
  .string({ error: 'must be a string' })
  .max(2048, 'must be at most 2048 characters')
  .refine((text) => /^https?:\/\//i.test(text) && URL.canParse(text), 'must be an http or https URL')
  .refine(
    (text) => !URL.canParse(text) || urlCredentials(new URL(text)) !== undefined,
    'must have its user name and password in valid percent-encoding',
  );

const headers = z.record(headerName, headerValue, {
  error: (issue) => {
    if (issue.code === 'invalid_type') return 'must be an object of strings';
    // zod reports a bad key as "Invalid key in record"; the key's own check says what is wrong.
    if (issue.code === 'invalid_key') return 'must be a valid HTTP header name';
    return undefined;
  },
});

// Unknown fields are dropped, as in the server console.
const body = <T extends z.ZodRawShape>(shape: T) =>
  z.object(shape, { error: 'the request body must be a JSON object' });

// setTimeout cannot wait longer than 2^31-1 ms.
const timeoutField = z
  .int({ error: 'must be a whole number of milliseconds' })
  .positive('must be more than 0')
  .max(2_147_483_647, 'must be at most 2147483647');

/** `POST /`: add a provider. */
export const CreateProviderSchema = body({
  name,
  server_url: serverUrl,
  headers: headers.optional(),
  timeout_ms: timeoutField.optional(),
  call_timeout_ms: timeoutField.optional(),
});

/**
 * `PUT /:id`: edit. Absent fields are kept; a `server_url` or header value still masked as shown
 * keeps the stored one, so a form can send back what it displayed. A `server_url` on another origin
 * takes no stored header value: `headers` is then required in full (README, "Tool providers").
 */
export const UpdateProviderSchema = body({
  name: name.optional(),
  server_url: z.string({ error: 'must be a string' }).optional(),
  headers: headers.optional(),
  timeout_ms: timeoutField.optional(),
  call_timeout_ms: timeoutField.optional(),
});

/** The URL check of `POST`, for a `PUT` that changes the URL. */
export const ServerUrlSchema = body({ server_url: serverUrl });

/** `POST /:id/tools/:name/call`: try a tool. */
export const CallToolSchema = body({
  arguments: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
});
