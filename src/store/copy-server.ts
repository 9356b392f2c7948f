import type { ServerRecord } from '../types/index.js';

/** A copy of a record that shares nothing mutable with it, so changing one never changes the other. */
export function copyServer(server: ServerRecord): ServerRecord {
  return {
    ...server,
    parameters: { ...server.parameters },
    ...(server.annotations && { annotations: { ...server.annotations } }),
    createdAt: new Date(server.createdAt),
    updatedAt: new Date(server.updatedAt),
  };
}
