import type { AppProgress } from '../../tool/observer.js';
import { isJsonObject } from '../../util/plain-object.js';
import { progressHasMessage } from '../../versions.js';
import type { JsonRpcNotification } from '../messages.js';

/** What a request names its progress by, in `params._meta.progressToken` (MCP "Progress"). */
export type ProgressToken = string | number;

/**
 * How far each heartbeat goes towards the next whole step: the k-th heartbeat after the app's value
 * n sends n + (step left) · k / (k + HEARTBEAT_PACE). The first moves a thousandth of a step, each
 * one a little less than the last, and none reaches the next step, so a progress bar never jumps
 * and the app's own next value is still ahead of them for many heartbeats.
 */
const HEARTBEAT_PACE = 1000;

/** The request's progress token, if it gave a usable one (a string or a number). */
export function progressTokenOf(params: Record<string, unknown>): ProgressToken | undefined {
  const meta = params._meta;
  if (!isJsonObject(meta)) return undefined;
  const token = meta.progressToken;
  if (typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token))) return token;
  return undefined;
}

/**
 * The `notifications/progress` of one call (MCP "Progress"): the app's own progress events, and
 * heartbeats in between. `progress` strictly increases across both, as the protocol requires: an
 * app value that would not increase is dropped. A heartbeat keeps the app's `total` and `message`
 * and stays strictly between the app's last value and the next whole step.
 */
export class ProgressNotes {
  /** The last value sent; nothing sent yet: any value increases. */
  #sent = Number.NEGATIVE_INFINITY;
  /** The app's last value sent, from which heartbeats count; 0 before the app has told any. */
  #appValue = 0;
  #heartbeats = 0;
  #total: number | undefined;
  #message: string | undefined;
  readonly #withMessage: boolean;

  constructor(
    readonly token: ProgressToken,
    protocolVersion: string,
  ) {
    this.#withMessage = progressHasMessage(protocolVersion);
  }

  /** The notification of an app's `progress` event, or `null` when its value would not increase. */
  fromApp({ progress, total, message }: AppProgress): JsonRpcNotification | null {
    if (typeof progress !== 'number' || !Number.isFinite(progress) || !(progress > this.#sent)) return null;
    this.#appValue = progress;
    this.#heartbeats = 0;
    this.#total = typeof total === 'number' && Number.isFinite(total) ? total : undefined;
    this.#message = typeof message === 'string' ? message : undefined;
    return this.#notify(progress);
  }

  /**
   * A heartbeat's notification, or `null` when no value is left between the last one and the next
   * step (floating point runs out after millions of heartbeats): an SSE comment line goes instead.
   */
  heartbeat(): JsonRpcNotification | null {
    const from = this.#appValue;
    const total = this.#total;
    const wholeStep = Math.floor(from) + 1;
    // Stop short of the app's total rather than pass it, when it is ahead.
    const next = total !== undefined && total > from ? Math.min(wholeStep, total) : wholeStep;
    this.#heartbeats += 1;
    const value = from + ((next - from) * this.#heartbeats) / (this.#heartbeats + HEARTBEAT_PACE);
    if (!(value > this.#sent && value < next)) return null;
    return this.#notify(value);
  }

  #notify(progress: number): JsonRpcNotification {
    this.#sent = progress;
    const params: Record<string, unknown> = { progressToken: this.token, progress };
    if (this.#total !== undefined) params.total = this.#total;
    if (this.#withMessage && this.#message !== undefined) params.message = this.#message;
    return { jsonrpc: '2.0', method: 'notifications/progress', params };
  }
}
