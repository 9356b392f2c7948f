import type { NextFunction, Request, Response } from 'express';
import { safeHook } from '../express/hook.js';
import { isUnavailable } from '../store/unavailable.js';
import { type AuthorizeConsole, type ConsoleAccess, ConsoleAccessSchema } from './console-options.js';
import { crossSiteWrite } from './cross-site.js';
import { ConsoleError } from './errors.js';
import { writeConsoleError, writeConsoleReply } from './reply.js';

/** What a console handler answers: a status and, unless 204, a JSON body (`null` is a body). */
export interface ConsoleReply<Body> {
  status: number;
  body?: Body;
}

/** What every console's error context holds; each console adds its own ids. */
export interface ConsoleContext {
  operation: string;
  tenantId?: string;
}

/** One authorised console request, as a handler sees it. */
export interface ConsoleCall<Context extends ConsoleContext> {
  req: Request;
  res: Response;
  access: ConsoleAccess;
  /** Filled in by the handler as it learns ids, for the error hook. */
  context: Context;
}

export interface ConsoleEndpointOptions<Context extends ConsoleContext> {
  /** The console's factory, named when `authorize` answers something malformed. */
  factory: string;
  authorize: AuthorizeConsole;
  onError: (error: unknown, context: Context) => void;
  /** What a caller without `canEdit` is told on a write (403). */
  forbidden: string;
  /** The answer to a failure that is not a `ConsoleError`, once reported; `undefined`: a plain 500. */
  failure?: (error: unknown) => ConsoleError | undefined;
}

const internalError = () => new ConsoleError('internal', 'Internal error');

/**
 * What a failure that is no `ConsoleError` answers, once reported: 503 when the database is out
 * of reach or too slow (`isUnavailable`), else what the console says, else a plain 500.
 */
function failureReply(error: unknown, failure: ((error: unknown) => ConsoleError | undefined) | undefined) {
  if (isUnavailable(error)) {
    return new ConsoleError(
      'temporarily_unavailable',
      'The database is temporarily unavailable: try again later',
    );
  }
  return failure?.(error) ?? internalError();
}

/**
 * The frame every console route runs in: refuse a write from another site (`crossSiteWrite`, 403),
 * authorize the caller (401 / 403 before anything is looked up, so a refusal never tells whether
 * something exists), run the handler, and write its reply or its failure as JSON; internal causes
 * go to the error hook, never to the client.
 */
export function consoleEndpoint<Context extends ConsoleContext>(options: ConsoleEndpointOptions<Context>) {
  const report = safeHook(options.onError);

  async function authorizeCall(req: Request, context: Context): Promise<ConsoleAccess> {
    let granted: unknown;
    try {
      granted = await options.authorize(req);
    } catch (error) {
      report(error, { ...context, operation: 'authorize' });
      throw internalError();
    }
    // No `WWW-Authenticate`: the scheme is the host's, and the console does not know it.
    if (granted === null || granted === undefined) {
      throw new ConsoleError('unauthorized', 'Authentication required');
    }
    const access = ConsoleAccessSchema.safeParse(granted);
    if (!access.success) {
      // A malformed answer must never widen access (an undefined tenant would be one shared tenant).
      const misuse = new TypeError(
        `${options.factory}: authorize must return { tenantId: string, canEdit: boolean } or null`,
      );
      report(misuse, { ...context, operation: 'authorize' });
      throw internalError();
    }
    return access.data;
  }

  return <Body>(
    operation: Context['operation'],
    need: 'read' | 'edit',
    handler: (call: ConsoleCall<Context>) => Promise<ConsoleReply<Body>>,
  ) =>
    (req: Request, res: Response, next: NextFunction) => {
      const context = { operation } as Context;
      // Before `authorize`: a forged write learns nothing and reaches nothing of the host's.
      const forged = crossSiteWrite(req, need === 'edit');
      if (forged) {
        writeConsoleError(res, forged);
        return;
      }
      const run = async (): Promise<ConsoleReply<Body>> => {
        const access = await authorizeCall(req, context);
        if (need === 'edit' && !access.canEdit) throw new ConsoleError('forbidden', options.forbidden);
        context.tenantId = access.tenantId;
        return handler({ req, res, access, context });
      };
      run()
        .then((reply) => writeConsoleReply(res, reply.status, reply.body))
        .catch((error: unknown) => {
          if (res.headersSent) return next(error);
          if (error instanceof ConsoleError) return writeConsoleError(res, error);
          report(error, context);
          writeConsoleError(res, failureReply(error, options.failure));
        });
    };
}
