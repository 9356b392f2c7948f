/**
 * A TCP proxy on 127.0.0.1 that the farm suites put between the instances and PostgreSQL, to
 * cut the database off and bring it back without touching the database itself:
 * - `cut('reset')`: every connection is reset and new ones are dropped at once (a database that
 *   went down: clients fail fast);
 * - `cut('silence')`: nothing passes any more, in either direction, and nothing is closed (a
 *   network that drops packets: clients wait until their own deadlines);
 * - `restore()`: new connections pass again; silenced ones are reset, as a firewall that lost
 *   their state would do, so their clients reconnect.
 */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(how: 'reset' | 'silence'): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | 'reset' | 'silence' = 'open';
  const pairs = new Set<[net.Socket, net.Socket | undefined]>();

  const drop = (pair: [net.Socket, net.Socket | undefined]) => {
    pair[0].resetAndDestroy();
    pair[1]?.resetAndDestroy();
    pairs.delete(pair);
  };

  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (mode === 'reset') return void client.resetAndDestroy();
    const pair: [net.Socket, net.Socket | undefined] = [client, undefined];
    pairs.add(pair);
    client.on('close', () => drop(pair));
    if (mode === 'silence') return void client.pause();
    const upstream = net.connect(target.port, target.host);
    pair[1] = upstream;
    upstream.on('error', () => {});
    upstream.on('close', () => drop(pair));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as net.AddressInfo).port,
    cut(how) {
      mode = how;
      for (const pair of [...pairs]) {
        if (how === 'reset') drop(pair);
        else {
          pair[0].unpipe();
          pair[1]?.unpipe();
          pair[0].pause();
          pair[1]?.pause();
        }
      }
    },
    restore() {
      mode = 'open';
      for (const pair of [...pairs]) drop(pair);
    },
    close() {
      for (const pair of [...pairs]) drop(pair);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The URL of the same database, reached through the proxy. */
export function throughProxy(databaseUrl: string, proxy: TcpProxy): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.toString();
}
