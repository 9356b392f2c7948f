export type { CallerKey, IssuedKey, KeyStore, NewKey } from './keys/types.js';
export { type KnexServerStoreOptions, knexServerStore } from './knex.js';
export { type MemoryServerStoreOptions, memoryServerStore } from './memory.js';
export { type MigrateOptions, migrate, type RollbackOptions, rollback } from './migrations.js';
export type {
  NewToolset,
  ToolsetChanges,
  ToolsetMember,
  ToolsetRecord,
  ToolsetStore,
} from './toolsets/types.js';
export type { KnexServerStore, NewServer, ResolverOptions, ServerChanges, ServerStore } from './types.js';
