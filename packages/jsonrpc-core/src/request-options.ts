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
 * What a transport learns about one outgoing message. `signal` aborts once the request it
 * belongs to has settled (answered, timed out, cancelled, closed), so a transport can stop
 * reading a response stream nobody waits for. `requestId` is set for requests only.
 */
export interface OutgoingContext {
  signal: AbortSignal;
  requestId?: JsonRpcId;
}

/** Writes one message to the peer; rejects when it could not be handed to the wire. */
export type SendMessage = (message: JsonRpcMessage, context: OutgoingContext) => Promise<void>;
