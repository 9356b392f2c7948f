/** The kinds of host apps that can be published. */
export type AppMode = 'workflow' | 'chat' | 'advanced-chat' | 'agent-chat' | 'completion';

/** The form types a host app's input form may use (Dify's `user_input_form`). */
export type InputVariableType =
  | 'text-input'
  | 'paragraph'
  | 'select'
  | 'number'
  | 'checkbox'
  | 'json_object'
  | 'file'
  | 'file-list'
  | 'external_data_tool';

/** One input of a host app's form, in the flat form. */
export interface InputVariable {
  type: InputVariableType;
  variable: string;
  label?: string;
  description?: string;
  required?: boolean;
  max_length?: number;
  options?: string[];
  default?: unknown;
  json_schema?: object;
  /** `file` and `file-list`: the Dify file types accepted (README, "Files in and out"). Absent or empty: any type. */
  allowed_file_types?: FileType[];
  /** With `custom` among the types: the extensions accepted (`.pdf` or `pdf`, any case). */
  allowed_file_extensions?: string[];
  /** Only `remote_url` can be offered over MCP: a variable that does not allow it is hidden. */
  allowed_file_upload_methods?: string[];
}

/** Dify's file types; `custom` is "any of `allowed_file_extensions`". */
export type FileType = 'image' | 'document' | 'audio' | 'video' | 'custom';

/** A file input as `runApp` receives it (README, "Files in and out"); the package never downloads it. */
export interface FileInput {
  /** The Dify file type the file matched. */
  type: FileType;
  /**
   * An `https:` or `http:` URL, or a base64 `data:` URL, as the WHATWG URL parser writes it
   * (`href`: scheme and host in lower case, spaces and non-ASCII escaped, dot segments resolved).
   */
  url: string;
  filename?: string;
  /** A valid media type (`type/subtype` and parameters, at most 255 characters), its type and subtype in lower case. */
  mimeType?: string;
}

/**
 * A file an app returns (README, "Files in and out"): a URL, or inline base64 `data`. With both, `data` is the
 * content and `url` names it. A base64 `data:` URL counts as inline data. It is also what a remote
 * tool's `image`, `audio`, `resource` and `resource_link` content blocks become (`connectMcpServer`).
 */
export interface AppFile {
  url?: string;
  /** Base64. */
  data?: string;
  mimeType?: string;
  name?: string;
  /** In bytes. */
  size?: number;
}

/** Dify's older nested form: `{ 'text-input': { variable, ... } }`. */
export type NestedInputVariable = { [K in InputVariableType]?: Omit<InputVariable, 'type'> };

/** A declared workflow output; the tool's `outputSchema` lists it and the outputs are checked against it. */
export interface DeclaredOutput {
  variable: string;
  /** `file` is an `AppFile`, `array[file]` a list of them. */
  type: 'string' | 'number' | 'boolean' | 'object' | 'array' | 'file' | 'array[file]';
  description?: string;
}

/** One of the host's own apps, as `loadApp` returns it. */
export interface HostApp {
  id: string;
  name: string;
  mode: AppMode;
  description?: string;
  /** Accepts both the flat and the old nested form of each entry. */
  inputForm: (InputVariable | NestedInputVariable)[];
  outputs?: DeclaredOutput[];
  /** `false`: published but not runnable right now (the endpoint answers 503). */
  available?: boolean;
  /** An https or data URL, shown as the tool's `icons` from protocol 2025-11-25. */
  icon?: string;
  /**
   * Chat modes only: the tool takes an optional `conversation_id`, runs get `run.conversationId`,
   * and results carry the conversation to continue (README, "Conversations").
   */
  conversations?: boolean;
}

/**
 * Hints a client reads before calling the tool (MCP 2025-03-26, `ToolAnnotations`), e.g. to ask
 * the user before a tool that is not read-only. Hints, not guarantees: clients must not rely on
 * them for security.
 */
export interface ToolAnnotations {
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** Meaningful when not read-only: the tool may delete or overwrite, rather than only add. */
  destructiveHint?: boolean;
  /** Meaningful when not read-only: calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the web, other people's systems), not a closed domain. */
  openWorldHint?: boolean;
}

/**
 * The published MCP face of one app (one row, one code), or of a toolset: several of the tenant's
 * apps behind one code (`kind: "toolset"`, docs/toolsets.md).
 */
export interface ServerRecord {
  id: string;
  tenantId: string;
  appId: string;
  name: string;
  description: string;
  serverCode: string;
  status: 'active' | 'inactive';
  /**
   * Who may call it: `"code"`, whoever has the URL; `"oauth"`, a user signed in with the host's
   * identity provider as well (see the README, "Per-user access with OAuth"); `"key"`, a caller
   * key of the server as well (docs/keys.md). Absent: `"code"`.
   */
  authMode?: AuthMode;
  /**
   * The first four characters of the code. A store that keeps codes hashed (docs/keys.md) knows
   * the code only when it makes one or is looked up by it: elsewhere `serverCode` is `''`.
   */
  codeHint?: string;
  /** Per-variable descriptions shown to clients, keyed by variable name. */
  parameters: Record<string, string>;
  /** The tool's hints (from protocol 2025-03-26); absent or empty: the tool carries none. */
  annotations?: ToolAnnotations;
  /**
   * Whether the tool runs as a task (docs/tasks.md): `"forbidden"`, never; `"optional"`, when the
   * client asks (2025-11-25) or supports it (2026-07-28); `"required"`, only as a task. Absent: `"optional"`.
   */
  taskSupport?: TaskSupport;
  /**
   * `"app"`: one app, one tool; `"toolset"`: one tool per member app (docs/toolsets.md). Records the
   * package's stores read always carry it, and runs always see it; absent in a host's own record: `"app"`.
   */
  kind?: ServerKind;
  /** A toolset whose tools are the tenant's published apps, following what it publishes (docs/toolsets.md). */
  allPublished?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** What a server serves: one app's tool, or a toolset's tools (docs/toolsets.md). */
export type ServerKind = 'app' | 'toolset';

/**
 * One tool of a toolset as the resolver hands it to the endpoint: the member's app and how its
 * tool shows, each field as a one-app server has it (docs/toolsets.md).
 */
export interface ResolvedMember {
  /** `null` (gone) or not `available`: the member is left out of the list; the other tools keep working. */
  app: HostApp | null;
  /** The tool's name (MCP naming rule); absent: the name a one-app server would give, made unique with `_2`, `_3`, … */
  toolName?: string;
  description: string;
  parameters: Record<string, string>;
  annotations?: ToolAnnotations;
  /** Absent: `"optional"`. */
  taskSupport?: TaskSupport;
}

/** How a server's callers are let in. */
export type AuthMode = 'code' | 'oauth' | 'key';

/** Whether a server's tool runs as a task (MCP 2025-11-25 `execution.taskSupport`). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** The end user every run of a server is attributed to: one per server (per server and signed-in user on an `"oauth"` server), created on first use. */
export interface EndUser {
  id: string;
  name: string;
}

/** What `resolveServer` returns for a known code. */
export interface ResolvedServer {
  server: ServerRecord;
  /** `null` when the app behind the server no longer exists; always `null` for a toolset. */
  app: HostApp | null;
  /**
   * A toolset's tools, in list order (`server.kind === "toolset"`); absent for a one-app server.
   * Members whose app is gone or unavailable may be given: the endpoint leaves them out.
   */
  members?: ResolvedMember[];
  /**
   * Returns the server's end user, creating it on first use; concurrent first calls must yield
   * one record. On an `"oauth"` server there is one per `subject` (the signed-in user), named by it.
   * Optional for hand-written resolvers: without it runs get `{ id: server.id, name }`.
   */
  endUser?: (name: string, subject?: string) => Promise<EndUser>;
}

/**
 * The endpoint's checks that need only the server (a caller's access to an `"oauth"` server): a
 * resolver calls it once it has found the server and before it loads the app, waits for the
 * promise it returns (none: nothing to wait for), and lets a rejection go through. A resolver that
 * never calls it still works: the check then runs afterwards.
 */
export type CheckServer = (server: ServerRecord) => Promise<void> | undefined;

/**
 * Maps a server code to its server and app; `null` means no such code. `HostRequest` is the
 * framework's request (Express's `Request` for `mcpServer`); the core never looks inside it.
 */
export type ResolveServer<HostRequest = unknown> = (
  serverCode: string,
  req: HostRequest,
  options?: ResolveOptions,
) => Promise<ResolvedServer | null>;

/** What the endpoint tells a `resolveServer` besides the code. */
export interface ResolveOptions {
  /**
   * Aborts when the endpoint stops waiting (`resolveTimeoutMs`): a resolver that can answer
   * otherwise by then (the store's `staleIfErrorMs` copy) should do it at once.
   */
  signal?: AbortSignal;
  /** See `CheckServer`: absent when the endpoint has nothing to check before the app is loaded. */
  checkServer?: CheckServer;
}

/** Loads one of the host's apps; `null` when it does not exist (any more). */
export type LoadApp = (appId: string, tenantId: string) => Promise<HostApp | null> | HostApp | null;
