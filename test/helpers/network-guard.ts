/**
 * Tests of the network policy send nothing beyond loopback: while a watch is on, a connection to
 * any other IP address is refused here, before a packet leaves, and recorded; and `dns.lookup` can
 * be told to resolve chosen names to chosen addresses, as a hostile DNS server would.
 */
import dns from 'node:dns';
import net from 'node:net';

const isLoopback = (host: string) =>
  host.startsWith('127.') || host === '::1' || host === 'localhost' || /^::ffff:(127\.|7f)/i.test(host);

/** Records (and stops) every connection to an IP address that is not loopback until `restore()`. */
export function watchConnections(): { attempts: string[]; restore(): void } {
  const attempts: string[] = [];
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // `net.connect` hands its arguments over normalized, as an array.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options = (
      typeof first === 'object' && first !== null ? first : { port: first, host: args[1] }
    ) as {
      host?: string;
      port?: number;
      path?: string;
    };
    const host = (options.host ?? 'localhost').replace(/^\[(.*)\]$/, '$1');
    if (!options.path && !isLoopback(host)) {
      attempts.push(`${host}:${options.port}`);
      process.nextTick(() => this.destroy(new Error(`the test stopped a connection to ${host}`)));
      return this;
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return {
    attempts,
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
}

/** Makes `dns.lookup` resolve each name of `names` to its addresses, in order, until `restore()`. */
export function resolveNames(names: Record<string, string[]>): { restore(): void } {
  const original = dns.lookup;
  dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
    const addresses = names[hostname]?.map((address) => ({ address, family: net.isIP(address) }));
    if (!addresses) return (original as (...args: unknown[]) => void)(hostname, options, callback);
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const all = typeof options === 'object' && (options as { all?: boolean } | null)?.all;
    const [first] = addresses;
    process.nextTick(() => (all ? done(null, addresses) : done(null, first?.address, first?.family)));
  }) as typeof dns.lookup;
  return {
    restore: () => {
      dns.lookup = original;
    },
  };
}
