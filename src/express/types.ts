import type { Request } from 'express';
import type * as Core from '../types/index.js';

/**
 * One run of a host app, handed to `runApp`; `request` is the Express request of the call
 * (docs/apps.md, "Reference"). An interface of its own rather than an alias of the generic core
 * type, so that the API reference lists its members.
 */
export interface AppRun extends Core.AppRun<Request> {}

/** Runs one app once: a plain result, or a stream of events (docs/apps.md, "runApp, mode by mode"). */
export type RunApp = (
  run: AppRun,
) => Promise<Core.AppResult | AsyncIterable<Core.AppEvent>> | Core.AppResult | AsyncIterable<Core.AppEvent>;

/** Maps a server code to its server and app (`null`: no such code); `req` is the Express request. */
export type ResolveServer = (
  serverCode: string,
  req: Request,
  options?: Core.ResolveOptions,
) => Promise<Core.ResolvedServer | null>;
