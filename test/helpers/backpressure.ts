/**
 * A client that does not read, and an app that has a lot to say: what the backpressure suites
 * share. The app reports progress with a 64 KiB message per event, 200 MiB in all, as fast as it
 * is let; the client sends a `tools/call` on a raw socket and never reads the reply, until told.
 */
import net from 'node:net';
import { expect } from 'vitest';
import type { AppEvent, HostApp, McpServerOptions, ServerStore } from '../../src/index.js';
import { sleep } from './common.js';
import { type Host, hostVariants, loadPackage, startHost } from './hosts.js';
import { envelope, MODERN } from './modern.js';

/** One event's message: 64 KiB of text. */
const CHUNK = 'x'.repeat(64 * 1024);
/** 3,200 events of 64 KiB: 200 MiB. */
export const LOUD_EVENTS = 3200;

export const LOUD_APP: HostApp = { id: 'loud', name: 'Loud', mode: 'workflow', inputForm: [] };

/**
 * Events a paused reply may have taken: what the connection's buffers and the kernel's socket
 * buffers hold on loopback (a few MiB), with room to spare; 200 MiB is 3,200.
 */
export const MAX_TAKEN = 320;
/** Resident memory one paused reply may add, generously: the app's whole output is 200 MiB. */
export const MAX_GROWTH_MIB = 64;

/**
 * A host whose one server, in `store`, runs the Loud app through `loud`; any error reported fails
 * the suite. `options` adds to the host's options (a `store` for resumable streams).
 */
export async function startLoudHost(
  loud: LoudRuns,
  store: ServerStore,
  options: Partial<McpServerOptions> = {},
): Promise<{ host: Host; path: string }> {
  const server = await store.createServer({
    tenantId: 't',
    appId: LOUD_APP.id,
    name: LOUD_APP.name,
    description: '',
    parameters: {},
  });
  const pkg = await loadPackage(5);
  const host = await startHost(hostVariants[0]!, pkg, {
    resolveServer: store.resolver((appId) => (appId === LOUD_APP.id ? LOUD_APP : null)),
    runApp: () => loud.run(),
    onError: (error) => {
      throw error;
    },
    ...options,
  });
  return { host, path: host.path(server.serverCode) };
}

/**
 * Waits until the Loud app is held, and checks it was held early: some events taken, fewer than
 * `MAX_TAKEN`, and less than `MAX_GROWTH_MIB` more memory than `before`. Returns the events taken.
 */
export async function expectHeld(loud: LoudRuns, before: number): Promise<number> {
  const held = await whenSettled(() => loud.taken, LOUD_EVENTS);
  const growth = rssMiB() - before;
  expect(held).toBeGreaterThan(0);
  expect(held).toBeLessThan(MAX_TAKEN);
  expect(growth).toBeLessThan(MAX_GROWTH_MIB);
  return held;
}

/** The Loud app's runs: how many events each has handed over, and a switch that ends them all. */
export class LoudRuns {
  /** Events the app has handed to the package so far, across its runs. */
  taken = 0;
  #stopped = false;

  /** Ends every run at its next event, with its outputs. */
  stop(): void {
    this.#stopped = true;
  }

  /** A run: progress events as fast as the package takes them, then the outputs. */
  run(): AsyncIterable<AppEvent> {
    const runs = this;
    return (async function* () {
      for (let i = 1; i <= LOUD_EVENTS && !runs.#stopped; i++) {
        runs.taken += 1;
        yield { event: 'progress', progress: i, total: LOUD_EVENTS, message: CHUNK };
      }
      yield { event: 'workflow_finished', outputs: { done: true } };
    })();
  }
}

/** A request whose reply nobody reads: its socket is paused from the start. */
export interface UnreadCall {
  /** Starts reading (and drops what it reads), as a client that catches up. */
  read(): void;
  /** How many bytes of the reply were read. */
  readonly bytesRead: number;
  close(): void;
}

/** POSTs a `tools/call` of the Loud app with a progress token on a raw socket, and reads nothing. */
export async function callWithoutReading(baseUrl: string, path: string, version = '2025-06-18') {
  const url = new URL(baseUrl);
  const meta: Record<string, unknown> = { progressToken: 'loud' };
  const headers = [`MCP-Protocol-Version: ${version}`];
  if (version === MODERN) {
    Object.assign(meta, envelope());
    headers.push('Mcp-Method: tools/call', `Mcp-Name: ${LOUD_APP.name}`);
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: LOUD_APP.name, arguments: {}, _meta: meta },
  });
  const socket = net.connect(Number(url.port), url.hostname);
  socket.pause();
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(
    [
      `POST ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      ...headers,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
  let bytesRead = 0;
  const call: UnreadCall = {
    read() {
      socket.on('data', (chunk: Buffer) => {
        bytesRead += chunk.length;
      });
      socket.resume();
    },
    get bytesRead() {
      return bytesRead;
    },
    close: () => socket.destroy(),
  };
  return call;
}

/**
 * Waits until `count()` stops moving (the same for half a second) or reaches `atMost`, and
 * returns it: how far a producer got before something held it.
 */
export async function whenSettled(count: () => number, atMost: number): Promise<number> {
  let last = count();
  let still = 0;
  while (still < 5 && last < atMost) {
    await sleep(100);
    const now = count();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

/** The process's resident memory, in MiB. */
export const rssMiB = (): number => process.memoryUsage().rss / 2 ** 20;
