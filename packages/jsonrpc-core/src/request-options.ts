import type { JsonRpcId, JsonRpcMessage, Progress } from "./types.js";

/** Per-request options understood by every transport (the SDK's names, so hosts can pass theirs). */
export interface RequestOptions {
  /** Milliseconds to wait for the response (default: the transport's, 60 000 unless configured). */
  timeout?: number;
  /** Aborting rejects the call with `signal.reason` and sends `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Receives `notifications/progress` for this request; setting it adds a progress token. */
  onprogress?: (progress: Progress) => void;
  /** Restart the timeout whenever progress arrives, bounded by `maxTotalTimeout`. */
  resetTimeoutOnProgress?: boolean;
  /** Absolute cap in milliseconds, whatever progress arrives. Default: no cap beyond `timeout` resets. */
  maxTotalTimeout?: number;
}

export interface NotifyOptions {
  signal?: AbortSignal;
}

/**
 * What a transport learns about one outgoing message. For a request, `signal` aborts and
 * `onSettled` listeners run once it has settled (answered, timed out, cancelled, closed), so a
 * transport can stop reading a response stream nobody waits for. `requestId` is set for
 * requests only. Reading `signal` creates it: prefer `onSettled` on hot paths.
 */
export interface OutgoingContext {
  readonly signal: AbortSignal;
  readonly requestId?: JsonRpcId;
  /**
   * Runs `listener` once the request has settled (at once if it has; never for notifications).
   * `answered` is true when the peer's response settled it, false for a timeout, a cancellation,
   * a failed write or a close: then nobody waits for the exchange any more.
   */
  onSettled(listener: (answered: boolean) => void): void;
}

/** The context of a message that is not a request: it never settles. */
export const NOTIFICATION_CONTEXT: OutgoingContext = Object.freeze({
  /** A fresh signal per read, so transports may listen on it without piling up listeners. */
  get signal(): AbortSignal {
    return new AbortController().signal;
  },
  onSettled(): void {},
});

/**
 * Writes one message to the peer; rejects when it could not be handed to the wire. For a request
 * (`context.requestId` set) it may instead return `undefined`: the frame was taken, and the
 * sender reports a failure to write it by failing that request itself (saving a promise a call).
 */
export type SendMessage = (
  message: JsonRpcMessage,
  context: OutgoingContext,
) => Promise<void> | undefined;
