import { randomBytes } from 'node:crypto';
import type { ServerRecord } from '../types/index.js';
import { isJsonObject } from '../util/plain-object.js';
import type { Signer } from './signing.js';

/**
 * Whether a client's capabilities let the server ask with a form: `elicitation` declared, with
 * `form`, or with neither `form` nor `url` (MCP 2025-11-25: an empty object means form).
 */
export function declaresFormElicitation(capabilities: unknown): boolean {
  if (!isJsonObject(capabilities)) return false;
  const elicitation = capabilities.elicitation;
  if (!isJsonObject(elicitation)) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/**
 * The `Mcp-Session-Id` `initialize` issues to a client that declared elicitation: what it
 * declared, signed, so that any instance reads it from the request alone and none keeps a session
 * (docs/http-contract.md, "Sessions"). Random per handshake.
 */
export function issueSessionId(signer: Signer, server: ServerRecord): string {
  return signer.sign(server, { p: 'session', e: 1, n: randomBytes(9).toString('base64url') });
}

/** Whether a request's `Mcp-Session-Id` is one `issueSessionId` made for this server. */
export function sessionMayAsk(signer: Signer, server: ServerRecord, sessionId: string | undefined): boolean {
  if (sessionId === undefined) return false;
  const payload = signer.verify(server, sessionId);
  return payload !== null && payload.p === 'session' && payload.e === 1;
}
