import { randomBytes } from 'node:crypto';

/**
 * A task id is the key to its result (MCP 2025-11-25 "Tasks": task ids must be unguessable where
 * they are the only guard): 192 random bits, URL-safe, so it also travels in the `Mcp-Name` header.
 */
export const newTaskId = (): string => randomBytes(24).toString('base64url');
