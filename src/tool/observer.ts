/** What an app reports of its progress (a `progress` event), as the app gave it. */
export interface AppProgress {
  progress: unknown;
  total?: unknown;
  message?: unknown;
}

/**
 * Follows one run while it goes, for a reply that can tell the client about it before the result
 * (a streamed reply: docs/http-contract.md, "Long runs"). Both are called synchronously, so they
 * must not throw.
 */
export interface RunObserver {
  /** The app emitted a `progress` event. */
  progress(report: AppProgress): void;
  /** A `notifications/cancelled` stopped the run: its result is for nobody. */
  cancelled(): void;
  /**
   * The app threw something other than an `AppRunError`: its result is the opaque error result, and
   * a task ends `failed` rather than `completed` (MCP 2026-07-28 tasks extension).
   */
  appFailed?(): void;
}
