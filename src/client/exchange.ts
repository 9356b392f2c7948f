import { AsyncLocalStorage } from 'node:async_hooks';
import { type RequestLabel, toRemoteMcpError } from './classify.js';
import { RemoteMcpError } from './errors.js';
import type { RequestLimits } from './session.js';

/**
 * How the SDKs resume a reply stream that carried event ids (MCP 2025-06-18 transports,
 * "Resumability and Redelivery"): their own defaults, given explicitly so that `Exchange` knows
 * when they give up.
 */
export const RECONNECTION = {
  initialReconnectionDelay: 1000,
  maxReconnectionDelay: 30_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/** What a request is sent with, besides its own limits: see `exchange`. */
export interface ExchangeOptions {
  /** Aborted when the request fails for a reason the SDK does not notice. */
  signal: AbortSignal;
  /** Told by the SDK that the reply stream is resumable (it carried an event id). */
  onresumptiontoken: (token: string) => void;
}

/**
 * One request of a session (the handshake, a page of `tools/list`, a `tools/call`) with every
 * fetch its transport makes for it, redirects and resumed streams included. What its fetches saw
 * go wrong belongs to it, and never explains the failure of a later request; and a reply that
 * ends without the response fails it at once, instead of leaving it to wait out its time.
 */
export class Exchange {
  /** A network failure or an HTTP error status one of its fetches met. */
  failure: RemoteMcpError | undefined;
  /** The redirect last passed on to the transport: a failure only if the transport leaves it unfollowed. */
  redirect: RemoteMcpError | undefined;
  private readonly controller = new AbortController();
  private settled = false;
  private resumable = false;
  private replies = 0;
  private failedResumptions = 0;

  /**
   * @param watched whether its replies are watched for their end: the exchange is one request,
   *   which settles with its response. The handshake is not: `connect` goes on after it.
   */
  constructor(
    readonly label: RequestLabel,
    readonly watched = true,
  ) {}

  /** What went wrong on the wire, for the errors the SDKs report in their own words. */
  get lastFailure(): RemoteMcpError | undefined {
    return this.redirect ?? this.failure;
  }

  get pending(): boolean {
    return !this.settled && !this.controller.signal.aborted;
  }

  /** Runs the request; `own` goes with it to the SDK. */
  async run<T>(send: (own: ExchangeOptions) => Promise<T>): Promise<T> {
    try {
      const onresumptiontoken = () => {
        this.resumable = true;
      };
      return await exchanges.run(this, () => send({ signal: this.controller.signal, onresumptiontoken }));
    } finally {
      this.settled = true;
    }
  }

  /** The reason it was failed with, once `fail` has been called. */
  get failedWith(): RemoteMcpError | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as RemoteMcpError) : undefined;
  }

  fail(error: RemoteMcpError): void {
    if (this.pending) this.controller.abort(error);
  }

  /** A reply to the request, a JSON body or an event stream, is being read. */
  replyStarted(): void {
    this.replies++;
  }

  /**
   * A reply has ended, short of its response with `error` (`undefined`: the client stopped reading
   * it). The SDK reads what the reply carried promise by promise, before the next turn of the event
   * loop: if that did not settle the request and no other reply is under way for it, the response
   * is not coming, and unless the SDK resumes the stream, the request fails with `error`.
   */
  replyEnded(error: RemoteMcpError | undefined): void {
    this.replies--;
    if (!error) return;
    setImmediate(() => {
      if (this.replies === 0 && !this.resumable) this.fail(error);
    });
  }

  /** A resumption of its stream failed; the SDK tries `RECONNECTION.maxRetries` times, or gives up at once (`final`). */
  resumptionFailed(final: boolean): void {
    this.failedResumptions++;
    if (final || this.failedResumptions >= RECONNECTION.maxRetries) {
      const { server, method } = this.label;
      this.fail(
        new RemoteMcpError(
          server,
          'closed',
          `closed the event stream during ${method}, and it could not be resumed`,
        ),
      );
    }
  }
}

/** The fetches an SDK starts for a request run in its async context, however late (`node:async_hooks`). */
const exchanges = new AsyncLocalStorage<Exchange>();

/** The exchange a fetch belongs to; `undefined` outside any request (closing, a cancellation). */
export const currentExchange = (): Exchange | undefined => exchanges.getStore();

/**
 * Runs `send` as an exchange of its own; it rejects with a `RemoteMcpError` saying what happened.
 * `send` passes `own` to the SDK with the request, its signal joined with the caller's `signal`.
 */
export async function exchange<T>(
  label: RequestLabel,
  signal: AbortSignal | undefined,
  send: (own: ExchangeOptions) => Promise<T>,
  { watched = true } = {},
): Promise<T> {
  const record = new Exchange(label, watched);
  const release: (() => void)[] = [];
  try {
    return await record.run((own) => send({ ...own, signal: joined(own.signal, signal, release) }));
  } catch (error) {
    throw record.failedWith ?? toRemoteMcpError(error, { ...label, lastFailure: record.lastFailure });
  } finally {
    for (const undo of release) undo();
  }
}

/**
 * One request of a session within its `limits`, as an exchange of its own: `send` gets the options
 * for the SDK's request, the limits with the exchange's own (its signal joined with the caller's).
 */
export function sessionRequest<T>(
  server: string,
  method: string,
  limits: RequestLimits,
  send: (options: RequestLimits & ExchangeOptions) => Promise<T>,
): Promise<T> {
  return exchange({ server, method, timeoutMs: limits.timeout }, limits.signal, (own) =>
    send({ ...limits, ...own }),
  );
}

/** Aborted when either is; `release` gets what undoes the listening once the request is over. */
function joined(own: AbortSignal, caller: AbortSignal | undefined, release: (() => void)[]): AbortSignal {
  if (!caller) return own;
  const both = new AbortController();
  for (const signal of [caller, own]) {
    if (signal.aborted) both.abort(signal.reason);
    const abort = () => both.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    release.push(() => signal.removeEventListener('abort', abort));
  }
  return both.signal;
}
