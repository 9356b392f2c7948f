import { createServer } from 'node:net';
import { expect, it } from 'vitest';

/** Waits `ms` milliseconds, or less when `signal` aborts first. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** A port nothing listens on at 127.0.0.1 right now, for another process (the example app, nginx) to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One test a row of `table`, named by `title` from the row: `fn` of the row's input is the row's output. */
export function itMaps<I, O>(title: string, fn: (input: I) => O, table: [I, O][]): void {
  it.each(table)(title, (input, output) => {
    expect(fn(input as I)).toBe(output);
  });
}
