import type { Request, Router } from 'express';
import type { KeyStore } from '../store/keys/types.js';
import type { ServerStore } from '../store/types.js';
import type { ServerRecord } from '../types/index.js';
import { auditEntry } from './audit.js';
import { validateBody } from './bodies.js';
import type { ConsoleErrorContext } from './console-options.js';
import type { ConsoleCall, ConsoleReply } from './endpoint.js';
import { ConsoleError } from './errors.js';
import { type ConsoleKey, NewKeyBodySchema, RotateKeyBodySchema, toConsoleKey } from './key-bodies.js';
import { readJsonBody } from './read-body.js';
import { methodNotAllowed } from './reply.js';

type Endpoint = <Body>(
  operation: ConsoleErrorContext['operation'],
  need: 'read' | 'edit',
  handler: (call: ConsoleCall<ConsoleErrorContext>) => Promise<ConsoleReply<Body>>,
) => (req: Request, res: import('express').Response, next: import('express').NextFunction) => void;

const param = (req: Request, name: string): string => req.params[name] as string;
const serverNotFound = () => new ConsoleError('not_found', 'MCP server not found');
const keyNotFound = () => new ConsoleError('not_found', 'key not found');

/**
 * The caller keys of a server (docs/keys.md): `:id` is a one-app server's or a toolset's id,
 * another tenant's is 404. A secret is in the reply that makes it, and nowhere else.
 */
export function mountKeyRoutes(router: Router, store: ServerStore, endpoint: Endpoint): void {
  /** The tenant's server and the store's keys; anything else is 404. */
  async function serverKeys({ req, access, context }: ConsoleCall<ConsoleErrorContext>) {
    const serverId = param(req, 'serverId');
    context.serverId = serverId;
    const server: ServerRecord | null = await store.getServerById(serverId);
    if (!server || server.tenantId !== access.tenantId) throw serverNotFound();
    context.appId = server.appId;
    const keys: KeyStore | undefined = store.keys;
    if (!keys) throw new ConsoleError('not_found', 'this store keeps no caller keys');
    return { server, keys };
  }

  const list = async (
    call: ConsoleCall<ConsoleErrorContext>,
  ): Promise<ConsoleReply<{ data: ConsoleKey[] }>> => {
    const { server, keys } = await serverKeys(call);
    const listed = await keys.list(server.id);
    return { status: 200, body: { data: listed.map((key) => toConsoleKey(key)) } };
  };

  const create = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleKey>> => {
    const body = validateBody(NewKeyBodySchema, await readJsonBody(call.req, call.res));
    const { server, keys } = await serverKeys(call);
    const details = {
      server_id: server.id,
      name: body.name,
      expires_at: body.expires_at ?? null,
      daily_call_quota: body.daily_call_quota ?? null,
    };
    const issued = await keys.create(
      server.id,
      {
        name: body.name,
        expiresAt: body.expires_at ? new Date(body.expires_at * 1000) : null,
        dailyCallQuota: body.daily_call_quota ?? null,
      },
      auditEntry(call.access, 'key.create', details),
    );
    return { status: 201, body: toConsoleKey(issued.key, issued.secret) };
  };

  const rotate = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<ConsoleKey>> => {
    const body = validateBody(RotateKeyBodySchema, await readJsonBody(call.req, call.res));
    const { server, keys } = await serverKeys(call);
    const keyId = param(call.req, 'keyId');
    const graceSeconds = body.grace_seconds ?? 0;
    const audit = auditEntry(
      call.access,
      'key.rotate',
      { server_id: server.id, grace_seconds: graceSeconds },
      keyId,
    );
    const issued = await keys.rotate(server.id, keyId, graceSeconds * 1000, audit);
    if (!issued) throw keyNotFound();
    return { status: 200, body: toConsoleKey(issued.key, issued.secret) };
  };

  const revoke = async (call: ConsoleCall<ConsoleErrorContext>): Promise<ConsoleReply<never>> => {
    const { server, keys } = await serverKeys(call);
    const keyId = param(call.req, 'keyId');
    const audit = auditEntry(call.access, 'key.revoke', { server_id: server.id }, keyId);
    if (!(await keys.revoke(server.id, keyId, audit))) throw keyNotFound();
    return { status: 204 };
  };

  router
    .route('/servers/:serverId/keys')
    .get(endpoint('list-keys', 'read', list))
    .post(endpoint('create-key', 'edit', create))
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/servers/:serverId/keys/:keyId/rotate')
    .post(endpoint('rotate-key', 'edit', rotate))
    .all(methodNotAllowed('POST'));
  router
    .route('/servers/:serverId/keys/:keyId')
    .delete(endpoint('revoke-key', 'edit', revoke))
    .all(methodNotAllowed('DELETE'));
}
