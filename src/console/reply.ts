import type { NextFunction, Request, Response } from 'express';
import { writeEmpty, writeJson } from '../express/write.js';
import { ConsoleError, consoleErrorBody } from './errors.js';

/** Writes a console reply: a JSON body, or none when `body` is undefined (204). */
export function writeConsoleReply(res: Response, status: number, body: unknown): void {
  // Replies carry server codes and masked credentials: no cache may keep them.
  res.setHeader('Cache-Control', 'no-store');
  if (body === undefined) writeEmpty(res, status);
  else writeJson(res, status, body, { contentType: 'application/json; charset=utf-8' });
}

/** Writes a `ConsoleError` as `{ error: { code, message, fields? } }` with its status. */
export function writeConsoleError(res: Response, error: ConsoleError): void {
  writeConsoleReply(res, error.status, consoleErrorBody(error));
}

/**
 * A 405 with `Allow`, for a route's other methods, and a `hint` after the method when there is more
 * to say. OPTIONS is left to the host (CORS middleware, Express's automatic answer).
 */
export function methodNotAllowed(allow: string, hint?: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS') return next();
    res.setHeader('Allow', allow);
    const message = `Method not allowed: ${req.method}${hint === undefined ? '' : `; ${hint}`}`;
    writeConsoleError(res, new ConsoleError('method_not_allowed', message));
  };
}
