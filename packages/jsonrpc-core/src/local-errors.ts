import { LocalErrorCode } from "./error-codes.js";
import type { JsonRpcId } from "./types.js";

export interface LocalErrorOptions {
  cause?: unknown;
  /** The last bytes the server wrote to stderr, when the transport has them. */
  stderrTail?: string;
  /** Structured facts about the failure (status, exit code, sizes…). */
  details?: Record<string, unknown>;
}

/** How much of the stderr tail the message repeats; the `stderrTail` property keeps all of it. */
const MESSAGE_TAIL_CHARS = 2048;

function lastChars(text: string, count: number): string {
  return text.length <= count ? text : `…${text.slice(-count)}`;
}

/**
 * Base of every error this process raises about its own side of a connection. Carries a string
 * `code` from {@link LocalErrorCode}; never sent over the wire.
 */
export class LocalError extends Error {
  override name = "LocalError";
  readonly code: LocalErrorCode;
  readonly stderrTail: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: LocalErrorCode, message: string, options: LocalErrorOptions = {}) {
    super(
      options.stderrTail
        ? `${message}\n--- server stderr (tail) ---\n${lastChars(options.stderrTail, MESSAGE_TAIL_CHARS)}`
        : message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.stderrTail = options.stderrTail;
    this.details = options.details ?? {};
  }
}

/** The transport failed or is closed; see `code` for which. */
export class TransportError extends LocalError {
  override name = "TransportError";
}

/** No response arrived in time. `details` holds `method`, `id`, `timeoutMs` and, when the absolute cap fired, `maxTotalTimeoutMs`. */
export class RequestTimeoutError extends LocalError {
  override name = "RequestTimeoutError";
  readonly method: string;
  readonly requestId: JsonRpcId;
  readonly timeoutMs: number;

  constructor(
    method: string,
    requestId: JsonRpcId,
    timeoutMs: number,
    options: LocalErrorOptions = {},
  ) {
    super(
      LocalErrorCode.RequestTimeout,
      `Request timeout after ${timeoutMs}ms: ${method} (id ${String(requestId)})`,
      {
        ...options,
        details: { method, id: requestId, timeoutMs, ...options.details },
      },
    );
    this.method = method;
    this.requestId = requestId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A request cancelled locally without a reason of its own. An AbortSignal's `reason` is passed
 * through unchanged instead whenever one exists; this class covers other local cancellations.
 */
export class RequestCancelledError extends LocalError {
  override name = "RequestCancelledError";
  constructor(message: string, options: LocalErrorOptions = {}) {
    super(LocalErrorCode.RequestCancelled, message, options);
  }
}

export function isLocalError(value: unknown): value is LocalError {
  return value instanceof LocalError;
}
