/**
 * Ready-to-paste ways to connect a client to a server (docs/clients.md): Claude Desktop through
 * `mcp-remote`, Claude Code, Cursor, VS Code, the MCP Inspector, and the same with the code in a
 * header rather than the URL. Every command runs as shown, on Node.js 20 and 22: `npx -y` (no
 * prompt) and the Inspector at the version the docs name (without one, npx may pick an older
 * Inspector that refuses these arguments).
 */

/** The Inspector the commands run; keep it the version `scripts/tools.mjs` pins and tests with. */
export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

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

/** The Inspector CLI listing the tool, with `extra` arguments before `--method`. @param {string} url @param {string} [extra] */
const inspectorList = (url, extra = '') =>
  `npx -y ${INSPECTOR} --cli ${url} --transport http ${extra}--method tools/list`;

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
      hint: 'In claude_desktop_config.json (Settings, Developer, Edit Config): Claude Desktop starts mcp-remote, which connects to the URL.',
      text: json({ mcpServers: { [name]: { command: 'npx', args: ['-y', 'mcp-remote', url] } } }),
    },
    {
      id: 'claude-code',
      label: 'Claude Code',
      hint: 'In a terminal: adds the server to Claude Code (this project; --scope user for all of them).',
      text: `claude mcp add --transport http ${name} ${url}`,
    },
    {
      id: 'cursor',
      label: 'Cursor',
      hint: 'In .cursor/mcp.json of the project, or ~/.cursor/mcp.json for every project.',
      text: json({ mcpServers: { [name]: { url } } }),
    },
    {
      id: 'vscode',
      label: 'VS Code',
      hint: 'In .vscode/mcp.json of the workspace (or “MCP: Open User Configuration”); the tool shows in Copilot’s agent mode.',
      text: json({ servers: { [name]: { type: 'http', url } } }),
    },
    {
      id: 'inspector',
      label: 'Inspector',
      hint: 'Lists the tool from a terminal (Node.js 20 or later). Without --cli it opens the Inspector in a browser.',
      text: inspectorList(url),
    },
  ];
  const plain = headerUrl(url, code);
  if (plain) {
    const bearer = `Bearer ${code}`;
    snippets.push({
      id: 'header',
      label: 'Code in header',
      hint: 'Keeps the code out of URLs and logs: the URL without the code, and the code as a bearer token. mcp-remote reads the header’s value from MCP_AUTH in env.',
      text: [
        '# Claude Desktop (claude_desktop_config.json)',
        json({
          mcpServers: {
            [name]: {
              command: 'npx',
              args: ['-y', 'mcp-remote', plain, '--header', AUTH_HEADER],
              env: { MCP_AUTH: bearer },
            },
          },
        }),
        '',
        '# Claude Code',
        `claude mcp add --transport http ${name} ${plain} --header "Authorization: ${bearer}"`,
        '',
        '# Cursor (.cursor/mcp.json)',
        json({ mcpServers: { [name]: { url: plain, headers: { Authorization: bearer } } } }),
        '',
        '# VS Code (.vscode/mcp.json)',
        json({ servers: { [name]: { type: 'http', url: plain, headers: { Authorization: bearer } } } }),
        '',
        '# Inspector',
        inspectorList(plain, `\\\n  --header "Authorization: ${bearer}" `),
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
