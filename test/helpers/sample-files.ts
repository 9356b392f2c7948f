/**
 * What the files suites send and expect: sample files (a 1×1 PNG, a short WAV, a small PDF), and a
 * raw `tools/call` or `tools/list` as a client of any protocol version sends it, to the core or to
 * a real host alike.
 */
import { afterEach, beforeAll } from 'vitest';
import { createFileWorld, type FileWorld } from './apps.js';
import { type CoreClient, startWorldCore } from './core.js';
import type { Headers, Reply } from './hosts.js';
import { envelope, MODERN, PROTOCOL_VERSION, standardHeaders } from './modern.js';
import { request } from './rpc.js';

/** What takes a JSON-RPC payload for a server code: a real host, or the core without HTTP. */
export interface Poster {
  post(serverCode: string, payload: unknown, headers?: Headers): Promise<Reply>;
}

/** One `tools/call` as a client of `version` sends it: the header, and for 2026-07-28 the envelope. */
export function callTool(
  to: Poster,
  code: string,
  version: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Reply> {
  const params = { name, arguments: args };
  if (version < MODERN) {
    return to.post(code, request(1, 'tools/call', params), { 'mcp-protocol-version': version });
  }
  return to.post(
    code,
    request(1, 'tools/call', { ...params, _meta: envelope({ [PROTOCOL_VERSION]: version }) }),
    { ...standardHeaders('tools/call', name), 'mcp-protocol-version': version },
  );
}

/** The `tools/list` entry of a server for a version, the same way. */
export async function listTool(to: Poster, code: string, version: string): Promise<Record<string, unknown>> {
  const reply =
    version < MODERN
      ? await to.post(code, request(1, 'tools/list', {}), { 'mcp-protocol-version': version })
      : await to.post(code, request(1, 'tools/list', { _meta: envelope({ [PROTOCOL_VERSION]: version }) }), {
          ...standardHeaders('tools/list'),
          'mcp-protocol-version': version,
        });
  const { tools } = (reply.json as { result: { tools: Record<string, unknown>[] } }).result;
  return tools[0] as Record<string, unknown>;
}

/** A 1×1 red PNG. */
/**
 * The Receipt Reader's server on a core without a socket, for a `describe`: its app answers
 * `{ ok: true }`, its runs are cleared after each test; `call(args, version)` calls its tool.
 */
export function receiptReaderCore() {
  const suite = {} as { world: FileWorld; core: CoreClient };
  beforeAll(async () => {
    Object.assign(suite, await startWorldCore(createFileWorld));
    suite.world.respond = () => ({ outputs: { ok: true } });
  });
  afterEach(() => {
    suite.world.runs.length = 0;
  });
  const call = (args: Record<string, unknown>, version = '2025-11-25') =>
    callTool(suite.core, suite.world.codes.receiptReader, version, 'Receipt_Reader', args);
  return Object.assign(suite, { call });
}

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
