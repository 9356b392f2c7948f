/** The MCP endpoint's route, relative to where the host mounts the router (see the README). */
export const MCP_ROUTE = '/mcp/server/:serverCode/mcp';

/** `MCP_ROUTE` as Express matches it (case-insensitive, optional trailing slash), without decoding the code. */
const MCP_ROUTE_SHAPE = /^\/mcp\/server\/[^/]+\/mcp\/?$/i;

/** Whether a request path is the shape of `MCP_ROUTE`. */
export const isMcpRoutePath = (path: string): boolean => MCP_ROUTE_SHAPE.test(path);

/** `MCP_ROUTE` for one server code, as a path a client can request. */
export const mcpPath = (serverCode: string): string => `/mcp/server/${encodeURIComponent(serverCode)}/mcp`;
