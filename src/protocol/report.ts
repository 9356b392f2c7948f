/**
 * What was being done when an internal failure happened, as the `onError` hook receives it; never
 * the server code.
 */
export interface ErrorContext {
  /**
   * - `resolve`: looking the server code up (`resolveServer` failed);
   * - `authenticate`: checking the caller of an `"oauth"` server (`verifyToken` failed, or no `auth` option);
   * - `dispatch`: reading the request or serving a method (a bug, or the store failing);
   * - `run`: the app failed to run;
   * - `outputs`: the app's result cannot be sent: outputs that do not match the outputs it declares,
   *   a file that cannot be sent, or a result too large (`maxInlineResultBytes`, `maxResultBytes`);
   * - `onCall`: the host's `onCall` hook threw or rejected;
   * - `metrics`: the `metrics` option's `onEvent` threw.
   */
  phase: 'resolve' | 'authenticate' | 'dispatch' | 'run' | 'outputs' | 'onCall' | 'metrics';
  serverId?: string;
  appId?: string;
}

/** Where internal failures go, with what was being done. */
export type ErrorReporter = (error: unknown, context: ErrorContext) => void;
