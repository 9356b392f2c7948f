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

/** The published MCP face of one app: one row, one code. */
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
   * identity provider as well (see the README, "Per-user access with OAuth"). Absent: `"code"`.
   */
  authMode?: AuthMode;
  /** Per-variable descriptions shown to clients, keyed by variable name. */
  parameters: Record<string, string>;
  /** The tool's hints (from protocol 2025-03-26); absent or empty: the tool carries none. */
  annotations?: ToolAnnotations;
  /**
   * Whether the tool runs as a task (docs/tasks.md): `"forbidden"`, never; `"optional"`, when the
   * client asks (2025-11-25) or supports it (2026-07-28); `"required"`, only as a task. Absent: `"optional"`.
   */
  taskSupport?: TaskSupport;
  createdAt: Date;
  updatedAt: Date;
}

/** How a server's callers are let in. */
export type AuthMode = 'code' | 'oauth';

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
  /** `null` when the app behind the server no longer exists. */
  app: HostApp | null;
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

/** One run of a host app, handed to `runApp` (see the README, "runApp, mode by mode"). */
export interface AppRun<HostRequest = unknown> {
  app: HostApp;
  server: ServerRecord;
  endUser: EndUser;
  inputs: Record<string, unknown>;
  /** Chat modes: the user's question; completion: `""`; workflow: absent. */
  query?: string;
  /**
   * Apps with `conversations: true`: the `conversation_id` the client passed back to continue a
   * conversation; absent for a new one.
   */
  conversationId?: string;
  /** Aborted on cancellation, on timeout, and when the client closes the response. */
  signal: AbortSignal;
  protocolVersion: string;
  /**
   * The HTTP request the call came in, as the framework gave it. In the 2026-07-28 era a run that
   * asks a person is served over several requests: this is the one being served, and `undefined`
   * while the run waits between them or when the answer reached another instance of a farm
   * (docs/asking-a-person.md): read what the run needs of it before asking.
   */
  request: HostRequest;
  /** On an `"oauth"` server: who called, as `verifyToken` said (never the token). Absent otherwise. */
  auth?: AuthInfo;
  /**
   * Whether this call can reach a person: the client declared elicitation (docs/asking-a-person.md).
   * Without it, `ask` rejects with `HumanInputUnavailable`.
   */
  readonly canAsk: boolean;
  /**
   * Asks the person behind the client and waits for the answer: a form of `fields`, shown with
   * `message`. Resolves `cancel` with `reason: 'timeout'` after `timeoutMs`; rejects when the call
   * is cancelled, and at once with `HumanInputUnavailable` when the client cannot ask.
   */
  ask(options: AskOptions): Promise<AskAnswer>;
}

/**
 * One field of a question to a person: an input form entry (flat or nested) of the types a person
 * can fill in a client's form: `text-input`, `paragraph`, `select`, `number`, `checkbox`.
 */
export type AskField = AskVariable | { [K in AskVariable['type']]?: Omit<AskVariable, 'type'> };

/** A field of `run.ask`, in the flat form (docs/asking-a-person.md, "Fields"). */
export interface AskVariable {
  type: 'text-input' | 'paragraph' | 'select' | 'number' | 'checkbox';
  variable: string;
  label?: string;
  description?: string;
  required?: boolean;
  /** `text-input` and `paragraph`: the longest answer. */
  max_length?: number;
  /** `select`: the values, or values with a label to show instead. */
  options?: (string | { value: string; label: string })[];
  /** `select`: the person picks any number of the options; the answer is a list. */
  multiple?: boolean;
  /**
   * `select` with labels: sent as `enum` with `enumNames` (the form MCP 2025-06-18 knows) even
   * where MCP 2025-11-25's titled `oneOf` could be used.
   */
  legacy_enum_names?: boolean;
  /** `number`: whole numbers only (`integer` in the schema). */
  integer?: boolean;
  default?: unknown;
}

/** What `run.ask` is given. */
export interface AskOptions {
  /** What the person is asked, shown above the form. */
  message: string;
  fields: AskField[];
  /** How long to wait for the answer, in ms. Default: the `humanInputTimeoutMs` option (600000). */
  timeoutMs?: number;
  /**
   * Names the question among those of one run (the key of `inputRequests` in MCP 2026-07-28).
   * Default: `question-<n>`, n counting the run's questions from 1.
   */
  key?: string;
}

/**
 * The person's answer. `accept` carries the values of the fields (a default fills a field left
 * out); `cancel` has a `reason` when the package decided it: `timeout`, or `invalid_answer` when
 * an answer did not fit the fields twice.
 */
export type AskAnswer =
  | { action: 'accept'; values: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel'; reason?: 'timeout' | 'invalid_answer' };

/** `conversationId`: the conversation this answer belongs to, for apps with `conversations: true`. */
export type AppResult =
  | { outputs: Record<string, unknown> | null }
  | { answer: string; files?: AppFile[]; conversationId?: string };

export type AppEvent =
  | { event: 'message' | 'agent_message' | 'message_replace'; answer: string; conversationId?: string }
  | { event: 'agent_thought'; thought: string }
  | { event: 'workflow_finished'; outputs: Record<string, unknown> | null }
  | { event: 'message_file'; file: AppFile }
  | { event: 'progress'; progress: number; total?: number; message?: string }
  /**
   * The end of an answer, as Dify's chat events end: `metadata.usage` (the tokens the run used,
   * as a JSON object) becomes the result's `_meta.usage` (docs/adapters.md, "Usage").
   */
  | { event: 'message_end'; metadata?: { usage?: Record<string, unknown> } }
  | { event: 'error'; message: string };

/** Runs one app once: a plain result, or a stream of events. */
export type RunApp<HostRequest = unknown> = (
  run: AppRun<HostRequest>,
) => Promise<AppResult | AsyncIterable<AppEvent>> | AppResult | AsyncIterable<AppEvent>;

/**
 * Who called, once a bearer token was accepted on an `"oauth"` server (MCP 2025-06-18
 * "Authorization"): what `verifyToken` returns and `runApp` receives as `run.auth`. Never the token.
 */
export interface AuthInfo {
  /** The user (or client) the token was issued to: the JWT `sub`. One end user per server and subject. */
  subject: string;
  /** The tenant the token belongs to; when present it must be the server's tenant (else 403). */
  tenantId?: string;
  /** The scopes the token grants. */
  scopes: string[];
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** When the token expires, in unix seconds; an expired token answers 401 `invalid_token`. */
  expiresAt?: number;
  /** Anything else the host wants its apps to see (`jwtVerifier` puts the token's claims here). */
  extra?: Record<string, unknown>;
}

/** What `verifyToken` is told besides the token. */
export interface VerifyTokenContext<HostRequest> {
  /**
   * The canonical URL of the server the token is presented to (scheme, host, path; no query):
   * a token must have been minted for it (RFC 8707 audience).
   */
  resource: string;
  /** The HTTP request, as the framework gave it. */
  req: HostRequest;
}

/** Checks a bearer token: who it is for, or `null` when it is not valid here (401 `invalid_token`). */
export type VerifyToken<HostRequest = unknown> = (
  token: string,
  context: VerifyTokenContext<HostRequest>,
) => Promise<AuthInfo | null> | AuthInfo | null;

/** The `auth` option of `mcpServer`: per-user access to `"oauth"` servers (see the README, "Per-user access with OAuth"). */
export interface AuthOptions<HostRequest = unknown> {
  /** Checks a bearer token presented to an `"oauth"` server; `jwtVerifier()` makes one for JWT access tokens. */
  verifyToken: VerifyToken<HostRequest>;
  /** The issuer URLs of the authorization servers that mint tokens for these servers (RFC 9728 `authorization_servers`). */
  authorizationServers: string[];
  /** The scopes clients may ask for (RFC 9728 `scopes_supported`). Default: not advertised. */
  scopesSupported?: string[];
  /** Scopes every token must grant; a token without them answers 403 `insufficient_scope`. Default: none. */
  requiredScopes?: string[];
  /** A human-readable name of the servers, for consent screens (RFC 9728 `resource_name`). Default: none. */
  resourceName?: string;
  /**
   * The public URL where the router is mounted, as clients reach it (`https://mcp.example.com`, or
   * `https://example.com/api` under a prefix): each server's resource URL, the audience its tokens
   * must name, is this followed by `/mcp/server/<code>/mcp`. Default: from the request, and only
   * from a `Host` (or a trusted `X-Forwarded-Host`) that passed the host check: a loopback name on
   * a server that listens on loopback, or one of `allowedHosts`. A server that listens elsewhere
   * with neither option cannot know its audience and refuses its `"oauth"` servers' requests
   * (docs/security.md).
   */
  resourceBaseUrl?: string;
}
