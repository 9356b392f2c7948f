/** Every name the package creates in the host's database, derived from one prefix. */
export interface TableNames {
  servers: string;
  endUsers: string;
  /** Remote MCP servers the host's apps call (`knexToolProviderStore`). */
  toolProviders: string;
  /** Our own migrations table, so we never share the host's. */
  migrations: string;
  /**
   * Constraints are named explicitly so a unique violation can be told apart on PostgreSQL
   * (`error.constraint`); SQLite names the columns instead.
   */
  constraints: {
    serverCode: string;
    tenantApp: string;
    status: string;
    endUserServer: string;
    endUserServerForeign: string;
    authMode: string;
    endUserServerSubject: string;
    toolProviderName: string;
  };
}

export function tableNames(prefix: string): TableNames {
  const servers = `${prefix}mcp_servers`;
  const endUsers = `${prefix}mcp_end_users`;
  const toolProviders = `${prefix}mcp_tool_providers`;
  return {
    servers,
    endUsers,
    toolProviders,
    migrations: `${prefix}mcp_migrations`,
    constraints: {
      serverCode: `${servers}_server_code_unique`,
      tenantApp: `${servers}_tenant_app_unique`,
      status: `${servers}_status_check`,
      endUserServer: `${endUsers}_server_unique`,
      endUserServerForeign: `${endUsers}_server_foreign`,
      authMode: `${servers}_auth_mode_check`,
      endUserServerSubject: `${endUsers}_server_subject_unique`,
      toolProviderName: `${toolProviders}_tenant_name_unique`,
    },
  };
}
