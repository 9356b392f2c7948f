/**
 * The audit log of `memoryServerStore()` (docs/usage.md, "The audit log"), as the Knex store keeps
 * it on every database (test/databases/usage.console.test.ts): a write with an audit entry is
 * recorded once it is made, a write that finds nothing or fails records nothing, the target of a
 * publish is the id the store drew, and each tenant reads its own records, newest first, by pages.
 */
import { describe, expect, it } from 'vitest';
import { memoryServerStore, ServerExistsError } from '../../src/index.js';
import type { AuditEntry, AuditLog } from '../../src/store/usage/types.js';

const entry = (tenantId: string, action: AuditEntry['action'], targetId?: string): AuditEntry => ({
  tenantId,
  actor: 'ana@example.com',
  action,
  ...(targetId ? { targetId } : {}),
  details: { note: action },
});

describe('the memory store keeps its audit log as the Knex store does', () => {
  it('records each write once made, never a write that found nothing or failed, per tenant and newest first', async () => {
    const store = memoryServerStore();
    const audit = store.audit as AuditLog;
    const input = { tenantId: 't1', appId: 'a1', name: 'A', description: '', parameters: {} };
    const server = await store.createServer(input, entry('t1', 'server.publish'));
    await expect(store.createServer(input, entry('t1', 'server.publish'))).rejects.toBeInstanceOf(
      ServerExistsError,
    );
    await store.updateServer(server.id, { description: 'new' }, entry('t1', 'server.update', server.id));
    expect(
      await store.updateServer('nope', { description: 'x' }, entry('t1', 'server.update', 'nope')),
    ).toBeNull();
    await store.rotateCode(server.id, entry('t1', 'server.rotate', server.id));
    expect(await store.deleteServer('nope', entry('t1', 'server.unpublish', 'nope'))).toBe(false);
    await store.deleteServer(server.id, entry('t1', 'server.unpublish', server.id));
    await store.createServer({ ...input, tenantId: 't2' }, entry('t2', 'server.publish'));

    const page = await audit.listAudit('t1', 10);
    expect(
      page.records.map(({ action, targetId, actor, tenantId }) => ({ action, targetId, actor, tenantId })),
    ).toEqual([
      { action: 'server.unpublish', targetId: server.id, actor: 'ana@example.com', tenantId: 't1' },
      { action: 'server.rotate', targetId: server.id, actor: 'ana@example.com', tenantId: 't1' },
      { action: 'server.update', targetId: server.id, actor: 'ana@example.com', tenantId: 't1' },
      { action: 'server.publish', targetId: server.id, actor: 'ana@example.com', tenantId: 't1' },
    ]);
    expect(page.next).toBeNull();
    const first = await audit.listAudit('t1', 3);
    const rest = await audit.listAudit('t1', 3, first.next!);
    expect([...first.records, ...rest.records].map((record) => record.id)).toEqual(
      page.records.map((record) => record.id),
    );
    expect(rest.next).toBeNull();
    expect((await audit.listAudit('t2', 10)).records.map((record) => record.action)).toEqual([
      'server.publish',
    ]);
  });
});
