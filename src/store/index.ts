export { type KnexServerStoreOptions, knexServerStore } from './knex.js';
export { memoryServerStore } from './memory.js';
export { type MigrateOptions, migrate, type RollbackOptions, rollback } from './migrations.js';
export type {
  NewToolset,
  ToolsetChanges,
  ToolsetMember,
  ToolsetRecord,
  ToolsetStore,
} from './toolsets/types.js';
export type { KnexServerStore, NewServer, ResolverOptions, ServerChanges, ServerStore } from './types.js';
