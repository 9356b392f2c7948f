// Types of dev-authorization-server.js, for the TypeScript tests that import it.
import type { Configuration, JWK } from 'oidc-provider';

export declare const MCP_SCOPE: 'mcp:tools';
export declare function providerConfiguration(options: {
  signingKey: JWK;
  tenantOf: (accountId: string) => string | undefined;
}): Configuration;
export declare function startDevAuthorizationServer(options: {
  host: string;
  port: number;
  publicHost: string;
  tenantId: string;
}): Promise<{ issuer: string; close(): Promise<void> }>;
