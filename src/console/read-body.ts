import express, { type Request, type Response } from 'express';
import { ConsoleError } from './errors.js';

// The consoles parse their own JSON bodies, scoped to their write routes; hosts with a global
// `express.json()` keep theirs (the body is then already parsed and this one steps aside).
const jsonParser = express.json();

/** Reads a console request's JSON body; a wrong type or an unreadable body is a `ConsoleError`. */
export async function readJsonBody(req: Request, res: Response): Promise<unknown> {
  // An empty body (`Content-Length: 0`, often without a type) is no body: the fields are then missing.
  const empty =
    req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
  if (!empty && !req.is('application/json')) {
    throw new ConsoleError('unsupported_media_type', 'Content-Type must be application/json');
  }
  await new Promise<void>((resolve, reject) => {
    jsonParser(req, res, (error?: unknown) => (error ? reject(bodyError(error)) : resolve()));
  });
  return req.body;
}

/** Maps body-parser's failures to console errors, with our own texts (its messages quote the body). */
function bodyError(error: unknown): unknown {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ConsoleError('invalid_json', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new ConsoleError('payload_too_large', 'The request body is too large');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ConsoleError('unsupported_media_type', 'Unsupported request body encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new ConsoleError('invalid_request', 'The request body could not be read');
    default:
      return error;
  }
}
