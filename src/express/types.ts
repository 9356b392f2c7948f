import type { Request } from 'express';
import type * as Core from '../types/index.js';

/** One run of a host app, handed to `runApp`; `request` is the Express request of the call. */
export type AppRun = Core.AppRun<Request>;

/** Runs one app once: a plain result, or a stream of events. */
export type RunApp = Core.RunApp<Request>;

/** Maps a server code to its server and app (`null`: no such code); `req` is the Express request. */
export type ResolveServer = Core.ResolveServer<Request>;
