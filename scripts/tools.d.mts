/** Types of `tools.mjs`, for the tests that use the on-demand tools. */
export declare const TOOLS_FOLDER: string;
export declare const TOOLS: Record<
  'inspector' | 'conformance' | 'mcp-remote' | 'autocannon' | 'biome' | 'node22',
  { package: string; version: string; entry: string | null }
>;
export type ToolName = keyof typeof TOOLS;
export declare function installTool(name: ToolName): Promise<string>;
export declare function toolEntry(name: Exclude<ToolName, 'node22'>): Promise<string>;
export declare function importTool(name: ToolName): Promise<unknown>;
export declare function node22(): Promise<string>;
export declare function runTool(name: Exclude<ToolName, 'node22'>, args: string[]): Promise<number>;
