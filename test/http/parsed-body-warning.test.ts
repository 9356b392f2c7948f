/**
 * A body parser mounted before `mcpServer()` (a global `express.json()`) silently replaces
 * `maxBodyBytes` with its own limit and answers bad bodies with the host's error page. The route
 * still serves such requests, and the first one makes a Node.js warning that says so, once.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PARSED_BODY_WARNING_CODE } from '../../src/endpoint/parsed-body-warning.js';
import { createWorld, type World } from '../helpers/apps.js';
import { type Host, hostVariants, startWorldHost } from '../helpers/hosts.js';
import { request } from '../helpers/rpc.js';

const WARNING =
  'mcpServer() received a request body that another body parser (such as a global express.json()) had ' +
  "already parsed. That parser's size limit (express.json() defaults to 100 kB) applies instead of " +
  "maxBodyBytes (4259840 bytes), and it answers malformed or too-large bodies with the app's error page " +
  "instead of a JSON-RPC error. Mount mcpServer() before the body parser, or raise the parser's limit.";

describe.each(hostVariants)('on $name', (variant) => {
  let world: World;
  let host: Host;
  const warnings: Error[] = [];
  const listen = (warning: Error) => {
    warnings.push(warning);
  };

  beforeEach(async () => {
    // A fresh copy of the package: the warning is once per process, that is once per copy here.
    ({ world, host } = await startWorldHost(variant, createWorld));
    process.on('warning', listen);
  });
  afterEach(async () => {
    process.off('warning', listen);
    warnings.length = 0;
    await host?.close();
  });
  afterAll(() => {
    process.off('warning', listen);
  });

  /** Two calls, then a turn of the event loop: warnings are emitted on the next tick. */
  async function twoCalls() {
    const replies = [
      await host.post(world.codes.textStats, request(1, 'ping')),
      await host.post(world.codes.textStats, request(2, 'ping')),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    return replies.map((reply) => reply.status);
  }

  it(
    variant.globalJson
      ? 'serves the body the host parsed, and warns once about the parser limit'
      : 'reads the body itself, and warns about nothing',
    async () => {
      expect(await twoCalls()).toEqual([200, 200]);
      const ours = warnings.filter((warning) => warning.name === 'ExpressAppMcpWarning');
      if (!variant.globalJson) {
        expect(ours).toEqual([]);
        return;
      }
      expect(
        ours.map((warning) => ({ code: (warning as { code?: string }).code, message: warning.message })),
      ).toEqual([{ code: PARSED_BODY_WARNING_CODE, message: WARNING }]);
      expect(ours[0]!.message).not.toContain(world.codes.textStats);
    },
  );
});
