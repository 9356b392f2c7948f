import type { ServerResponse } from 'node:http';

/** How a JSON body is written: its exact text when it is at hand already, and its media type. */
export interface JsonWriteOptions {
  /** `JSON.stringify(body)`, when the caller has it already. */
  json?: string;
  /** Default `application/json`. */
  contentType?: string;
}

/** Writes a whole JSON reply: status, `Content-Type`, `Content-Length` and the body, in one go. */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  { json = JSON.stringify(body), contentType = 'application/json' }: JsonWriteOptions = {},
): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** Writes a reply with no body (202, 204). */
export function writeEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}
