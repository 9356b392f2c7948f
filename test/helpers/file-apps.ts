/**
 * A host whose apps take and return files, for the files suites: a workflow with file
 * inputs, a workflow that declares file outputs, and a chat app; what the apps return is set by
 * each test (`world.respond`). Also a raw `tools/call` for any protocol version, legacy or modern,
 * and the sample files (a 1×1 PNG, a short WAV, a small PDF).
 */
import type * as Package from '../../src/index.js';
import type {
  AppEvent,
  AppResult,
  AppRun,
  ErrorContext,
  HostApp,
  McpServerOptions,
  ServerStore,
} from '../../src/index.js';
import {
  type Host,
  type HostVariant,
  hostVariants,
  loadPackage,
  type Reply,
  request,
  startHost,
} from './hosts.js';

export const FILE_TENANT = 'tenant-files';

/** A workflow that takes a receipt image and up to two attachments, and echoes nothing useful. */
export const RECEIPT_READER: HostApp = {
  id: 'receipt-reader',
  name: 'Receipt Reader',
  mode: 'workflow',
  inputForm: [
    {
      type: 'file',
      variable: 'receipt',
      label: 'Receipt photo',
      required: true,
      allowed_file_types: ['image'],
      allowed_file_upload_methods: ['local_file', 'remote_url'],
    },
    {
      type: 'file-list',
      variable: 'attachments',
      label: 'Attachments',
      max_length: 2,
      allowed_file_types: ['document', 'custom'],
      allowed_file_extensions: ['.ZIP'],
    },
    { type: 'file', variable: 'scan', label: 'Scan', allowed_file_upload_methods: ['local_file'] },
    { type: 'text-input', variable: 'note', label: 'Note', max_length: 10 },
  ],
};

/** A workflow that declares a text, an image and a list of documents as its outputs. */
export const REPORT_MAKER: HostApp = {
  id: 'report-maker',
  name: 'Report Maker',
  mode: 'workflow',
  inputForm: [],
  outputs: [
    { variable: 'summary', type: 'string' },
    { variable: 'image', type: 'file', description: 'A chart' },
    { variable: 'documents', type: 'array[file]' },
  ],
};

/** A chat app whose answers may come with files (`message_file` events or `files`). */
export const FILE_CHAT: HostApp = { id: 'file-chat', name: 'File Chat', mode: 'chat', inputForm: [] };

const FILE_APPS = [RECEIPT_READER, REPORT_MAKER, FILE_CHAT];

export type Respond = (
  run: AppRun,
) => AppResult | AsyncIterable<AppEvent> | Promise<AppResult | AsyncIterable<AppEvent>>;

export interface FileWorld {
  host: Host;
  codes: { receiptReader: string; reportMaker: string; fileChat: string };
  /** Every run, in order. */
  runs: AppRun[];
  reports: { error: unknown; context: ErrorContext }[];
  /** What the apps return; each test sets it. */
  respond: Respond;
  close(): Promise<void>;
}

/** Publishes the file apps in a memory store and serves them on 127.0.0.1 (Express 5). */
export async function startFileWorld(
  overrides: Partial<McpServerOptions> = {},
  variant: HostVariant = hostVariants[0] as HostVariant,
): Promise<FileWorld> {
  const pkg: typeof Package = await loadPackage(variant.major);
  const store: ServerStore = pkg.memoryServerStore();
  const publish = (app: HostApp) =>
    store.createServer({
      tenantId: FILE_TENANT,
      appId: app.id,
      name: app.name,
      description: '',
      parameters: {},
    });
  const [receiptReader, reportMaker, fileChat] = await Promise.all(FILE_APPS.map(publish));
  const loadApp = (appId: string, tenantId: string) =>
    tenantId === FILE_TENANT ? (FILE_APPS.find((app) => app.id === appId) ?? null) : null;

  const world: Omit<FileWorld, 'host' | 'close'> = {
    codes: {
      receiptReader: receiptReader!.serverCode,
      reportMaker: reportMaker!.serverCode,
      fileChat: fileChat!.serverCode,
    },
    runs: [],
    reports: [],
    respond: () => ({ outputs: {} }),
  };
  const host = await startHost(variant, pkg, {
    resolveServer: store.resolver(loadApp),
    runApp: (run) => {
      world.runs.push(run);
      return world.respond(run);
    },
    onError: (error, context) => {
      world.reports.push({ error, context });
    },
    ...overrides,
  });
  return Object.assign(world, { host, close: () => host.close() });
}

const MODERN = '2026-07-28';

/** One `tools/call` as a client of `version` sends it: the header, and for 2026-07-28 the envelope. */
export function callTool(
  host: Host,
  code: string,
  version: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Reply> {
  const params: Record<string, unknown> = { name, arguments: args };
  if (version < MODERN)
    return host.post(code, request(1, 'tools/call', params), { 'mcp-protocol-version': version });
  params._meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return host.post(code, request(1, 'tools/call', params), {
    'mcp-protocol-version': version,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  });
}

/** The `tools/list` entry of a server for a version, the same way. */
export async function listTool(host: Host, code: string, version: string): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  const headers: Record<string, string> = { 'mcp-protocol-version': version };
  if (version >= MODERN) {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    headers['mcp-method'] = 'tools/list';
  }
  const reply = await host.post(code, request(1, 'tools/list', params), headers);
  return (reply.json as { result: { tools: Record<string, unknown>[] } }).result.tools[0] as Record<
    string,
    unknown
  >;
}

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV file: 8 kHz, 8-bit mono, 8 samples of silence. */
export const WAV_BASE64 = (() => {
  const samples = Buffer.alloc(8, 0x80);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]).toString('base64');
})();

/** The start of a PDF; enough to stand for inline data that is neither an image nor audio. */
export const PDF_BASE64 = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');

/** How many bytes base64 text decodes to. */
export const decodedSize = (base64: string): number => Buffer.from(base64, 'base64').length;
