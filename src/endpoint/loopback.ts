import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Server } from 'node:net';

/** Whether a listening address is loopback (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
function isLoopbackAddress(address: AddressInfo | string | null): boolean {
  if (address === null || typeof address === 'string') return false; // a pipe or unix socket
  const ip = address.address.replace(/^::ffff:/, '');
  return ip === '::1' || ip.startsWith('127.');
}

const loopbackByServer = new WeakMap<Server, boolean>();

/**
 * Whether the host's HTTP server listens on a loopback address, where DNS rebinding must be
 * checked (see `docs/http-contract.md`); it never changes while the server runs, so it is asked once.
 */
export function listensOnLoopback(req: IncomingMessage): boolean {
  const server = (req.socket as { server?: Server }).server;
  if (!server) return false;
  let loopback = loopbackByServer.get(server);
  if (loopback === undefined) {
    loopback = isLoopbackAddress(server.address());
    loopbackByServer.set(server, loopback);
  }
  return loopback;
}
