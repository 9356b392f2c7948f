import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../errors.js';

/** The parts of the official MCP client SDK the client direction uses. */
export interface ClientSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
  CallToolResultSchema: typeof CallToolResultSchema;
  ListToolsResultSchema: typeof ListToolsResultSchema;
}

const SDK = '@modelcontextprotocol/sdk';

let loading: Promise<ClientSdk> | undefined;

/**
 * Loads the official MCP client SDK on first use. It is an optional peer dependency: only hosts
 * that call remote servers install it, and the dynamic `import()` keeps the rest of the package
 * (the MCP endpoint, the console, the stores) free of it, in the ES module and CommonJS builds alike.
 */
export function loadClientSdk(): Promise<ClientSdk> {
  loading ??= importSdk().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function importSdk(): Promise<ClientSdk> {
  try {
    const [client, streamable, sse, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/client/sse.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return {
      Client: client.Client,
      StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
      CallToolResultSchema: types.CallToolResultSchema,
      ListToolsResultSchema: types.ListToolsResultSchema,
    };
  } catch (error) {
    if (isMissing(error)) {
      throw new ConfigurationError(
        'missing_peer_dependency',
        `connectMcpServer needs the optional peer dependency ${SDK}: npm install ${SDK}`,
      );
    }
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(SDK)
  );
}
