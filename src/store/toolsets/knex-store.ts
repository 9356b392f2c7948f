import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ServerRecord } from '../../types/index.js';
import { type ServerRow, toServer } from '../server-rows.js';
import type { TableNames } from '../tables.js';
import { nextUpdatedAt } from '../updated-at.js';
import { insertAudit } from '../usage/knex-audit.js';
import type { AuditEntry } from '../usage/types.js';
import { type MemberRow, memberRows, toMember, toolsetAppId } from './rows.js';
import type { NewToolset, ToolsetChanges, ToolsetRecord, ToolsetStore } from './types.js';

/** What the toolsets of a Knex store share with its servers. */
export interface KnexToolsetParts {
  knex: Knex;
  tables: TableNames;
  /** Runs `write` with a fresh code, again while the code collides. */
  withFreshCode<T>(write: (code: string) => Promise<T>): Promise<T>;
  /** How codes are kept: as they are or hashed (docs/keys.md, "Codes hashed at rest"). */
  codes: {
    stored(code: string): Pick<ServerRow, 'server_code' | 'code_hint'>;
    withCode(server: ServerRecord, code: string): ServerRecord;
  };
  /** Drops a server's codes from the store's cache. */
  forget(serverId: string): void;
}

/**
 * The toolsets of `knexServerStore` (docs/toolsets.md): rows of the servers table of kind
 * `"toolset"`, their apps in the members table. Every write moves the toolset row's `updated_at`,
 * which the change trigger announces to a farm's other instances as it does a rotation.
 */
export function knexToolsets({ knex, tables, withFreshCode, codes, forget }: KnexToolsetParts) {
  const servers = (db: Knex = knex) => db<ServerRow>(tables.servers);

  async function withMembers(rows: ServerRow[], db: Knex = knex): Promise<ToolsetRecord[]> {
    if (rows.length === 0) return [];
    const members: MemberRow[] = await db(tables.toolsetMembers)
      .whereIn(
        'toolset_id',
        rows.map((row) => row.id),
      )
      .orderBy(['toolset_id', 'position']);
    return rows.map((row) => ({
      ...(toServer(row) as ToolsetRecord),
      kind: 'toolset',
      allPublished: Boolean(row.all_published),
      members: members.filter((member) => member.toolset_id === row.id).map(toMember),
    }));
  }

  async function get(id: string, db: Knex = knex): Promise<ToolsetRecord | null> {
    const row = await servers(db).where({ id, kind: 'toolset' }).first();
    if (!row) return null;
    const [toolset] = await withMembers([row as ServerRow], db);
    return toolset ?? null;
  }

  const store: ToolsetStore = {
    async create(input: NewToolset, audit?: AuditEntry) {
      const id = randomUUID();
      const now = Date.now();
      const base = {
        id,
        tenant_id: input.tenantId,
        app_id: toolsetAppId(id),
        name: input.name,
        description: input.description,
        status: input.status ?? 'active',
        auth_mode: input.authMode ?? 'code',
        task_support: 'optional' as const,
        parameters: '{}',
        annotations: null,
        kind: 'toolset' as const,
        all_published: input.allPublished,
        created_at: now,
        updated_at: now,
      };
      const code = await withFreshCode((fresh) =>
        knex.transaction(async (trx) => {
          await trx(tables.servers).insert({ ...base, ...codes.stored(fresh) });
          const rows = memberRows(id, input.members);
          if (rows.length > 0) await trx(tables.toolsetMembers).insert(rows);
          if (audit) await insertAudit(trx, tables, audit, id);
          return fresh;
        }),
      );
      // A store that keeps codes hashed knows this one only now: the reply that makes it shows it.
      return codes.withCode((await get(id)) as ToolsetRecord, code) as ToolsetRecord;
    },

    get: (id) => get(id),

    async list(tenantId) {
      const rows = await servers()
        .where({ tenant_id: tenantId, kind: 'toolset' })
        .orderBy(['created_at', 'id']);
      return withMembers(rows as ServerRow[]);
    },

    async update(id, changes: ToolsetChanges, audit?: AuditEntry) {
      forget(id);
      const values: Partial<ServerRow> = {};
      if (changes.name !== undefined) values.name = changes.name;
      if (changes.description !== undefined) values.description = changes.description;
      if (changes.status !== undefined) values.status = changes.status;
      if (changes.authMode !== undefined) values.auth_mode = changes.authMode;
      if (changes.allPublished !== undefined) values.all_published = changes.allPublished;
      const updated = await knex.transaction(async (trx) => {
        // The row moves even when only its members change: its revision is what others follow.
        const count = await servers(trx)
          .where({ id, kind: 'toolset' })
          .update({ ...values, updated_at: nextUpdatedAt(trx) });
        if (count === 0) return null;
        if (changes.members !== undefined) {
          await trx(tables.toolsetMembers).where({ toolset_id: id }).delete();
          const rows = memberRows(id, changes.members);
          if (rows.length > 0) await trx(tables.toolsetMembers).insert(rows);
        }
        if (audit) await insertAudit(trx, tables, audit, id);
        return get(id, trx);
      });
      forget(id);
      return updated;
    },

    async appServers(tenantId) {
      const rows = await servers().where({ tenant_id: tenantId, kind: 'app' });
      return (rows as ServerRow[]).map(toServer);
    },
  };

  /**
   * A one-app server was published, changed or unpublished: the toolsets of its tenant that serve
   * its app (every `all_published` one, and those listing it) move, so that their lists are built
   * again here and, through the change trigger, on the other instances of a farm.
   */
  async function touch(row: Pick<ServerRow, 'tenant_id' | 'app_id' | 'kind'>): Promise<void> {
    if (row.kind === 'toolset') return;
    const listing = knex(tables.toolsetMembers).select('toolset_id').where({ app_id: row.app_id });
    const touched: { id: string }[] = await servers()
      .where({ tenant_id: row.tenant_id, kind: 'toolset' })
      .andWhere((where) => where.where({ all_published: true }).orWhereIn('id', listing))
      .update({ updated_at: nextUpdatedAt(knex) })
      .returning('id');
    for (const { id } of touched) forget(id);
  }

  return { store, touch };
}
