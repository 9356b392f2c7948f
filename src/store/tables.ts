/** Every name the package creates in the host's database, derived from one prefix. */
export interface TableNames {
  servers: string;
  endUsers: string;
  /** Remote MCP servers the host's apps call (`knexToolProviderStore`). */
  toolProviders: string;
  /** Our own migrations table, so we never share the host's. */
  migrations: string;
  /** The shared rate-limit counters (PostgreSQL only), in the layout `rate-limiter-flexible` reads. */
  rateLimits: string;
  /** Resumable streams: one row per stream, bound to its server, and its events. */
  streams: string;
  streamEvents: string;
  /** Tasks (MCP 2025-11-25 "Tasks"): runs a client fetches the result of later. */
  tasks: string;
  /** Calls counted per server, tool, caller and UTC hour (docs/usage.md). */
  usage: string;
  /** Each caller's calls per UTC day, for daily call quotas. */
  dailyCalls: string;
  /** Every console write: who, what, when. */
  auditLog: string;
  /** Caller keys of `"key"` servers (docs/keys.md): prefixes and hashes, never secrets. */
  serverKeys: string;
  /** The trigger, and its function, that announce every change of a key as a change of its server (PostgreSQL only). */
  keyChangeTrigger: string;
  /** The apps of each toolset, in list order (docs/toolsets.md). */
  toolsetMembers: string;
  /** The trigger, and its function, that announce every change of a server (PostgreSQL only). */
  serverChangeTrigger: string;
  /** PostgreSQL `NOTIFY` channels between the instances of a farm. */
  channels: {
    /** A server was changed or deleted; the payload is its id. */
    serverChanged: string;
    /** A `tools/call` is cancelled; the payload names the server and the request. */
    cancelled: string;
    /** A stream has a new event; the payload is the stream's id. */
    streamEvent: string;
    /** Input for a run waiting for a person (an answer, a 2026-07-28 retry); the payload names it. */
    input: string;
  };
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
    taskStatus: string;
    taskSupport: string;
    serverKeyPrefix: string;
    serverKeyServerForeign: string;
    serverKind: string;
    toolsetMember: string;
    toolsetMemberForeign: string;
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
    rateLimits: `${prefix}mcp_rate_limits`,
    streams: `${prefix}mcp_streams`,
    streamEvents: `${prefix}mcp_stream_events`,
    tasks: `${prefix}mcp_tasks`,
    usage: `${prefix}mcp_usage`,
    dailyCalls: `${prefix}mcp_daily_calls`,
    auditLog: `${prefix}mcp_audit_log`,
    serverKeys: `${prefix}mcp_server_keys`,
    keyChangeTrigger: `${prefix}mcp_server_keys_notify_change`,
    toolsetMembers: `${prefix}mcp_toolset_members`,
    serverChangeTrigger: `${servers}_notify_change`,
    channels: {
      serverChanged: `${servers}_changed`,
      cancelled: `${prefix}mcp_calls_cancelled`,
      streamEvent: `${prefix}mcp_stream_events`,
      input: `${prefix}mcp_run_input`,
    },
    constraints: {
      serverCode: `${servers}_server_code_unique`,
      tenantApp: `${servers}_tenant_app_unique`,
      status: `${servers}_status_check`,
      endUserServer: `${endUsers}_server_unique`,
      endUserServerForeign: `${endUsers}_server_foreign`,
      authMode: `${servers}_auth_mode_check`,
      endUserServerSubject: `${endUsers}_server_subject_unique`,
      toolProviderName: `${toolProviders}_tenant_name_unique`,
      taskStatus: `${prefix}mcp_tasks_status_check`,
      taskSupport: `${servers}_task_support_check`,
      serverKeyPrefix: `${prefix}mcp_server_keys_prefix_unique`,
      serverKeyServerForeign: `${prefix}mcp_server_keys_server_foreign`,
      serverKind: `${servers}_kind_check`,
      toolsetMember: `${prefix}mcp_toolset_members_app_unique`,
      toolsetMemberForeign: `${prefix}mcp_toolset_members_toolset_foreign`,
    },
  };
}
