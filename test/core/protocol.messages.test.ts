/**
 * docs/http-contract.md, row 8 and the ids: JSON that is not a JSON-RPC message, and how ids are
 * echoed, driven through the protocol core (the transport suite sends such bodies over HTTP).
 */
import { describe, it } from 'vitest';
import { createWorld } from '../helpers/apps.js';
import { worldOnCore } from '../helpers/core.js';
import { expectAccepted, expectRpcReply, request, rpcError, rpcResult } from '../helpers/rpc.js';

describe('JSON-RPC messages', () => {
  const suite = worldOnCore(createWorld);

  const ping = (id: string | number) => suite.core.post(suite.world.codes.textStats, request(id, 'ping'));

  describe('row 8: JSON that is not a JSON-RPC message', () => {
    const invalid = (id: string | number | null, text: string, issues: { path: string; message: string }[]) =>
      rpcError(id, -32600, `Invalid request: ${text}`, { issues });

    it('a message without method answers 400 -32600 and echoes its id', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, { jsonrpc: '2.0', id: 'abc' });
      expectRpcReply(
        reply,
        400,
        invalid('abc', 'method: method must be a string', [
          { path: 'method', message: 'method must be a string' },
        ]),
      );
    });

    it('jsonrpc "1.0" answers 400 -32600 and echoes the id', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, {
        jsonrpc: '1.0',
        id: 0,
        method: 'ping',
      });
      expectRpcReply(
        reply,
        400,
        invalid(0, 'jsonrpc: jsonrpc must be "2.0"', [{ path: 'jsonrpc', message: 'jsonrpc must be "2.0"' }]),
      );
    });

    it('a message without jsonrpc answers 400 -32600', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, { id: 4, method: 'ping' });
      expectRpcReply(
        reply,
        400,
        invalid(4, 'jsonrpc: jsonrpc must be "2.0"', [{ path: 'jsonrpc', message: 'jsonrpc must be "2.0"' }]),
      );
    });

    it.each([
      ['an array', []],
      ['a string', 'ping'],
      ['null', null],
    ])('params that are %s answer 400 -32600', async (_label, params) => {
      const reply = await suite.core.post(suite.world.codes.textStats, {
        jsonrpc: '2.0',
        id: 5,
        method: 'ping',
        params,
      });
      expectRpcReply(
        reply,
        400,
        invalid(5, 'params: params must be an object', [
          { path: 'params', message: 'params must be an object' },
        ]),
      );
    });

    it.each([
      ['a fraction', 1.5],
      ['a boolean', true],
      ['an object', { n: 1 }],
      ['an array', [1]],
    ])('an id that is %s answers 400 -32600 with id null', async (_label, id) => {
      const reply = await suite.core.post(suite.world.codes.textStats, {
        jsonrpc: '2.0',
        id,
        method: 'ping',
      });
      expectRpcReply(
        reply,
        400,
        invalid(null, 'id: id must be a string or an integer', [
          { path: 'id', message: 'id must be a string or an integer' },
        ]),
      );
    });

    it('a JSON-RPC response (result, no method) is a client answering the server: 202, no body', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, { jsonrpc: '2.0', id: 9, result: {} });
      expectAccepted(reply);
    });

    it('a JSON-RPC error response from the client is accepted too: 202, no body', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, {
        jsonrpc: '2.0',
        id: 'elicitation-1',
        error: { code: -32603, message: 'the form could not be shown' },
      });
      expectAccepted(reply);
    });

    it('a response-shaped message with neither result nor error answers 400 -32600', async () => {
      const reply = await suite.core.post(suite.world.codes.textStats, { jsonrpc: '2.0', id: 9 });
      expectRpcReply(
        reply,
        400,
        invalid(9, 'method: method must be a string', [
          { path: 'method', message: 'method must be a string' },
        ]),
      );
    });

    it('nothing is resolved for a malformed request: an unknown code still answers 400, not 404', async () => {
      const reply = await suite.core.post('Unknown000000000', { jsonrpc: '2.0', id: 1 });
      expectRpcReply(
        reply,
        400,
        invalid(1, 'method: method must be a string', [
          { path: 'method', message: 'method must be a string' },
        ]),
      );
    });
    it.each([
      ['a number', 42],
      ['a string', 'ping'],
      ['null', null],
    ])('a JSON value that is %s answers 400 -32600 with id null', async (_label, payload) => {
      expectRpcReply(
        await suite.core.post(suite.world.codes.textStats, payload),
        400,
        invalid(null, 'a JSON-RPC message must be a JSON object', [
          { path: '', message: 'a JSON-RPC message must be a JSON object' },
        ]),
      );
    });
  });

  it('ids are echoed exactly: a string id stays a string, 0 is an id', async () => {
    expectRpcReply(await ping('1'), 200, rpcResult('1', {}));
    expectRpcReply(await ping(0), 200, rpcResult(0, {}));
    expectRpcReply(await ping(''), 200, rpcResult('', {}));
    expectRpcReply(await ping(-7), 200, rpcResult(-7, {}));
  });
});
