/**
 * The database is out of reach or busy right now: worth a `503` and a retry rather than a fault
 * (docs/http-contract.md, row 19a). A store throws it with the driver's error as its `cause`; the
 * protocol maps it to `temporarilyUnavailable`.
 */
export class Unavailable extends Error {
  override name = 'Unavailable';
}

/** `resolveServer` did not answer within `resolveTimeoutMs`. */
export class ResolveTimeout extends Unavailable {
  override name = 'ResolveTimeout';
  constructor(ms: number) {
    super(`resolveServer did not answer within ${ms} ms`);
  }
}
