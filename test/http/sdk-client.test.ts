/**
 * End to end with the official MCP TypeScript SDK client (`Client` + `StreamableHTTPClientTransport`)
 * against a real HTTP server on 127.0.0.1, on Express 4 and 5: connect (initialize, negotiating the
 * SDK's latest version, then `notifications/initialized` and the optional GET stream, which we
 * refuse with 405 as the transport allows), list, call with the client's own output-schema check, ping.
 */
import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { describe, expect, it } from 'vitest';
import { createWorld, DESCRIPTIONS, TEXT_STATS_TOOL, UNKNOWN_CODE } from '../helpers/apps.js';
import { hostVariants, worldHostFor } from '../helpers/hosts.js';
import { SERVER_CAPABILITIES } from '../helpers/rpc.js';

const { version: PACKAGE_VERSION } = JSON.parse(
  await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
);

/** The SDK's own Ajv validator, recording what it checks, so a test can see the check ran. */
class RecordingValidator extends AjvJsonSchemaValidator {
  readonly checked: { schema: JsonSchemaType; input: unknown; valid: boolean }[] = [];
  override getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const validate = super.getValidator<T>(schema);
    return (input) => {
      const result = validate(input);
      this.checked.push({ schema, input, valid: result.valid });
      return result;
    };
  }
}

describe.each(hostVariants)('the official MCP SDK client on $name', (variant) => {
  const suite = worldHostFor(variant, createWorld);

  const connect = async (code: string, validator = new RecordingValidator()) => {
    const client = new Client({ name: 'sdk-e2e', version: '3.2.1' }, { jsonSchemaValidator: validator });
    const transport = new StreamableHTTPClientTransport(new URL(`${suite.host.url}${suite.host.path(code)}`));
    await client.connect(transport);
    return { client, transport, validator };
  };

  it('connects, negotiating the latest version, 2025-11-25', async () => {
    const { client, transport } = await connect(suite.world.codes.textStats);
    try {
      expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(transport.sessionId).toBeUndefined();
      expect(client.getServerVersion()).toEqual({ name: 'express-app-mcp', version: PACKAGE_VERSION });
      expect(client.getServerCapabilities()).toEqual(SERVER_CAPABILITIES);
      expect(client.getInstructions()).toBe(DESCRIPTIONS.textStats);
    } finally {
      await client.close();
    }
  });

  it('lists the one tool, calls it with output-schema validation, and pings', async () => {
    const { client, validator } = await connect(suite.world.codes.textStats);
    try {
      expect(await client.listTools()).toEqual({ tools: [TEXT_STATS_TOOL.withIcons] });

      const outputs = { word_count: 5, top_words: ['to', 'be'] };
      const result = await client.callTool({
        name: 'Text_Stats',
        arguments: { text: 'to be or not be', top_n: 2 },
      });
      expect(result).toEqual({
        content: [{ type: 'text', text: JSON.stringify(outputs) }],
        structuredContent: outputs,
        isError: false,
      });
      expect(validator.checked).toEqual([
        { schema: TEXT_STATS_TOOL.withIcons.outputSchema, input: outputs, valid: true },
      ]);
      const run = suite.world.runs.at(-1);
      expect({ inputs: run?.inputs, version: run?.protocolVersion, user: run?.endUser.name }).toEqual({
        inputs: { text: 'to be or not be', top_n: 2 },
        version: '2025-11-25',
        user: 'sdk-e2e@3.2.1',
      });

      expect(await client.ping()).toEqual({});
    } finally {
      await client.close();
    }
  });

  it('arguments that fail the form come back as a tool error the model can read', async () => {
    const { client } = await connect(suite.world.codes.textStats);
    try {
      await client.listTools();
      const result = await client.callTool({ name: 'Text_Stats', arguments: { top_n: 'lots' } });
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool Text_Stats: text is required; top_n must be a number',
          },
        ],
        isError: true,
      });
    } finally {
      await client.close();
    }
  });

  it('a chat app answers through the client too', async () => {
    const { client } = await connect(suite.world.codes.faqBot);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['FAQ_Bot']);
      const result = await client.callTool({ name: 'FAQ_Bot', arguments: { query: 'opening hours?' } });
      expect(result).toEqual({
        content: [{ type: 'text', text: 'You asked: opening hours?' }],
        structuredContent: { answer: 'You asked: opening hours?' },
        isError: false,
      });
    } finally {
      await client.close();
    }
  });

  it('an unknown server code fails to connect with the 404 and its JSON-RPC error', async () => {
    const client = new Client({ name: 'sdk-e2e', version: '3.2.1' });
    const transport = new StreamableHTTPClientTransport(
      new URL(`${suite.host.url}${suite.host.path(UNKNOWN_CODE)}`),
    );
    await expect(client.connect(transport)).rejects.toThrow(/MCP server not found/);
    await client.close();
  });
});
