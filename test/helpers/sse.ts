/**
 * A server-sent events reader on a raw HTTP request, for the resumption suites: it reads events
 * one by one as they arrive (HTML "Server-sent events" parsing: `id`, `data`, `retry`, comments),
 * and can drop the connection in the middle, as a client whose network failed.
 */
import http from 'node:http';
import { CLIENT_HEADERS } from './hosts.js';

export interface SseEvent {
  id?: string;
  /** The event's data lines joined; `''` for an event with an empty `data:`. */
  data?: string;
  retry?: number;
  /** A comment line's text, when the stream was opened with `comments: true`. */
  comment?: string;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The next event, or `null` when the stream has ended. */
  next(): Promise<SseEvent | null>;
  /** Every event left, until the end. */
  rest(): Promise<SseEvent[]>;
  /** Drops the connection. */
  drop(): void;
}

export function openSse(
  url: string,
  request: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
    /** Comment lines come out as events of their own too, in order. */
    comments?: boolean;
  },
): Promise<SseStream> {
  const target = new URL(request.path, url);
  const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string> = { ...CLIENT_HEADERS, ...request.headers };
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: request.method ?? 'POST',
        headers,
        agent: false,
      },
      (res) => {
        const events: SseEvent[] = [];
        const waiting: ((event: SseEvent | null) => void)[] = [];
        let ended = false;
        let buffer = '';
        let current: SseEvent = {};
        const emit = (event: SseEvent | null) => {
          const waiter = waiting.shift();
          if (waiter) waiter(event);
          else if (event) events.push(event);
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
            const line = buffer.slice(0, end);
            buffer = buffer.slice(end + 1);
            if (line === '') {
              if (Object.keys(current).length > 0) emit(current);
              current = {};
            } else if (line.startsWith(':')) {
              if (request.comments) emit({ comment: line.slice(1).trim() });
            } else {
              const colon = line.indexOf(':');
              const field = colon === -1 ? line : line.slice(0, colon);
              const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id') current.id = value;
              else if (field === 'data')
                current.data = current.data === undefined ? value : `${current.data}\n${value}`;
              else if (field === 'retry') current.retry = Number(value);
            }
          }
        });
        const finish = () => {
          if (ended) return;
          ended = true;
          for (const waiter of waiting.splice(0)) waiter(null);
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
        const stream: SseStream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          next: () =>
            events.length > 0
              ? Promise.resolve(events.shift() as SseEvent)
              : ended
                ? Promise.resolve(null)
                : new Promise((done) => waiting.push(done)),
          async rest() {
            const all: SseEvent[] = [];
            for (let event = await stream.next(); event; event = await stream.next()) all.push(event);
            return all;
          },
          drop: () => {
            req.destroy();
            finish();
          },
        };
        resolve(stream);
      },
    );
    req.on('error', (error) => reject(error));
    req.end(body);
  });
}

/** What a stream's events say, in order: each progress value, then `result` for the response. */
export const said = (events: SseEvent[]): (number | 'result')[] =>
  events
    .filter((event) => event.data)
    .map((event) => {
      const message = JSON.parse(event.data as string);
      return message.method === 'notifications/progress' ? message.params.progress : 'result';
    });
