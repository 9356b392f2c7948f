import { z } from 'zod';
import type { RequestId } from '../errors/mcp-error.js';
import { isPlainJsonObject } from '../util/plain-object.js';
import { type Issue, issuesOf, issueText } from '../util/zod-issues.js';

/** JSON-RPC ids are strings or integers; `0` is a valid id (JSON-RPC 2.0 §4). */
export const RequestIdSchema = z.union([z.string(), z.int()]);
export type { RequestId };

const ParamsSchema = z.record(z.string(), z.unknown(), { error: 'params must be an object' });

/** One JSON-RPC 2.0 request or notification (docs/http-contract.md, row 8). A null id counts as no id (row 10). */
export const MessageSchema = z.object(
  {
    jsonrpc: z.literal('2.0', { error: 'jsonrpc must be "2.0"' }),
    method: z.string({ error: 'method must be a string' }),
    id: z.union([z.string(), z.int(), z.null()], { error: 'id must be a string or an integer' }).optional(),
    params: ParamsSchema.optional(),
  },
  { error: 'a JSON-RPC message must be a JSON object' },
);

export type Message = z.infer<typeof MessageSchema>;

export const InitializeParamsSchema = z.object({
  protocolVersion: z.custom<unknown>((value) => value !== undefined, {
    error: 'protocolVersion is required',
  }),
  clientInfo: z.looseObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
});

export const CallToolParamsSchema = z.object({
  name: z.string({ error: 'name must be a string' }),
  // Not z.record, which drops a `__proto__` key: that is a variable name like any other.
  arguments: z
    .custom<Record<string, unknown>>(isPlainJsonObject, { error: 'arguments must be an object' })
    .nullish(),
});

export const CancelledParamsSchema = z.object({ requestId: RequestIdSchema });

/** A response of ours. */
export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: RequestId | null; result: unknown }
  | { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string; data?: unknown } };

/** A notification of ours (what a streamed reply sends before its response, such as progress). */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** Describes zod issues as one sentence for an error message, and as plain data for `error.data`. */
export function describeIssues(error: z.ZodError): { text: string; issues: Issue[] } {
  const issues = issuesOf(error);
  return { text: issueText(issues), issues };
}
