import { isMissingPeer } from '../util/missing-peer.js';
import { RemoteMcpError } from './errors.js';
import { loadModernSdk, MODERN_SDK, type ModernClientSdk } from './modern-sdk.js';
import { openModernSession } from './modern-session.js';
import type { ParsedConnectOptions } from './options.js';
import { loadClientSdk } from './sdk.js';
import { sdkSessions } from './sdk-session.js';
import { MODERN_VERSION, type Session } from './session.js';
import { openSession, transportsFor } from './transport.js';

/** Failures that another era would only repeat, after as long a wait. */
const OUTAGES = new Set<RemoteMcpError['kind']>(['unreachable', 'timeout']);

/**
 * Opens a session in the protocol era `options.protocol` asks for (README, "Calling remote MCP
 * servers from your apps"): the 2026-07-28 era through `@modelcontextprotocol/client`, the 2025 era
 * through `@modelcontextprotocol/sdk`. In `auto`, a server that answers `server/discover` without
 * offering 2026-07-28, or answers it in any way short of an outage, is spoken to in the 2025 era, as
 * if `protocol` were `'2025'`; so is every server when the client package is not installed, and a
 * server reached over the HTTP+SSE transport, which the 2026-07-28 revision does not have.
 */
export async function openEraSession(
  url: URL,
  server: string,
  options: ParsedConnectOptions,
): Promise<Session> {
  if (options.protocol === MODERN_VERSION) {
    return openModernSession(await loadModernSdk(), url, server, options);
  }
  const kinds = transportsFor(url, options.transport);
  const modern = options.protocol === 'auto' && kinds[0] === 'streamable-http' && (await installed());
  if (modern) {
    try {
      return await openModernSession(modern, url, server, options);
    } catch (error) {
      if (!(error instanceof RemoteMcpError) || OUTAGES.has(error.kind)) throw error;
    }
  }
  return openSession(sdkSessions(await loadClientSdk(), url, server, options), kinds, server);
}

/** The client package when it is installed; `undefined` when it is not. */
async function installed(): Promise<ModernClientSdk | undefined> {
  try {
    return await loadModernSdk();
  } catch (error) {
    if (isMissingPeer(error, MODERN_SDK)) return undefined;
    throw error;
  }
}
