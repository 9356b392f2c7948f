/**
 * A load balancer in a few lines, on 127.0.0.1: each new TCP connection goes to the next backend
 * in turn. The suites' HTTP client opens one connection per request, so requests go round-robin.
 */
import net from 'node:net';

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backendPorts: number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const port = backendPorts[next++ % backendPorts.length] as number;
    const backend = net.connect(port, '127.0.0.1');
    for (const socket of [client, backend]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        backend.destroy();
      });
    }
    client.pipe(backend);
    backend.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
