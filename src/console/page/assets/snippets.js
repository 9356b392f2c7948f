/**
 * Ready-to-paste ways to connect a client to a server (docs/console.md): Claude Desktop through
 * `mcp-remote`, the MCP Inspector, and the same two with the code in a header rather than the URL.
 */

// biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${MCP_AUTH} from its env, not JavaScript
const AUTH_HEADER = 'Authorization:${MCP_AUTH}';

/**
 * @typedef {{ id: string, label: string, hint: string, text: string }} Snippet
 */

/**
 * The URL without its code, for the header form: `…/mcp/server/<code>/mcp` → `…/mcp/server/mcp`.
 * `null` when the host's MCP path does not have the code as a segment of its own.
 * @param {string} url
 * @param {string} code
 */
export function headerUrl(url, code) {
  const segment = `/${code}/`;
  return url.includes(segment) ? url.replace(segment, '/') : null;
}

/**
 * @param {{ appId: string, url: string, code: string }} server
 * @returns {Snippet[]}
 */
export function snippetsFor({ appId, url, code }) {
  const name = appId.replace(/[^A-Za-z0-9_-]/g, '-') || 'server';
  /** @type {Snippet[]} */
  const snippets = [
    {
      id: 'claude',
      label: 'Claude Desktop',
      hint: 'In claude_desktop_config.json: Claude Desktop starts mcp-remote, which connects to the URL.',
      text: json({ mcpServers: { [name]: { command: 'npx', args: ['mcp-remote', url] } } }),
    },
    {
      id: 'inspector',
      label: 'Inspector',
      hint: 'Lists the tool from a terminal (Node 22 or later). Without --cli it opens the Inspector in a browser.',
      text: `npx @modelcontextprotocol/inspector --cli ${url} --transport http --method tools/list`,
    },
  ];
  const plain = headerUrl(url, code);
  if (plain) {
    snippets.push({
      id: 'header',
      label: 'Code in header',
      hint: 'Keeps the code out of URLs and logs: the URL without the code, and the code as a bearer token. mcp-remote reads the header’s value from MCP_AUTH in env.',
      text: [
        json({
          mcpServers: {
            [name]: {
              command: 'npx',
              args: ['mcp-remote', plain, '--header', AUTH_HEADER],
              env: { MCP_AUTH: `Bearer ${code}` },
            },
          },
        }),
        '',
        `npx @modelcontextprotocol/inspector --cli ${plain} --transport http \\`,
        `  --header "Authorization: Bearer ${code}" --method tools/list`,
      ].join('\n'),
    });
  }
  return snippets;
}

/** Indented JSON, with arrays of strings kept on one line as people write them. @param {unknown} value */
const json = (value) =>
  JSON.stringify(value, null, 2).replace(
    /\[\n\s*("(?:[^"\\]|\\.)*"(?:,\n\s*"(?:[^"\\]|\\.)*")*)\n\s*\]/g,
    (_, items) => `[${items.replace(/,\n\s*/g, ', ')}]`,
  );
