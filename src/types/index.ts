/**
 * The public types: what a host gives the package (its apps, `runApp`, `verifyToken`) and what the
 * package hands back. Every layer may import them; they import no other folder (docs/architecture.md).
 */
export type * from './access.js';
export type * from './app.js';
export type * from './auth.js';
export type * from './run.js';
