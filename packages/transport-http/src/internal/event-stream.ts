import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { createParser, type EventSourceMessage } from "eventsource-parser";

export type { EventSourceMessage };

/** `details.reason` of the error a read fails with when the stream went idle. */
export const IDLE_REASON = "idle";

export interface EventStreamOptions {
  /** Stops reading; the read rejects with the signal's reason. */
  signal: AbortSignal;
  onEvent(event: EventSourceMessage): void;
  /** The server's `retry:` field, in milliseconds. */
  onRetry?(ms: number): void;
  /** Fail the read when no byte arrived for this long (0 or undefined: wait forever). */
  idleTimeoutMs?: number | undefined;
  /** Largest single event accepted, in bytes; the read fails with FRAME_TOO_LARGE past it. */
  maxEventBytes: number;
}

/**
 * Reads a `text/event-stream` body incrementally with eventsource-parser, delivering each event
 * as it completes. Resolves when the server ends the stream cleanly; rejects with the signal's
 * reason on abort, with TRANSPORT_FAILED when the connection breaks or stays idle past
 * `idleTimeoutMs`, and with FRAME_TOO_LARGE when one event grows past `maxEventBytes`.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  options: EventStreamOptions,
): Promise<void> {
  const { signal, idleTimeoutMs, maxEventBytes } = options;
  if (signal.aborted) {
    await body.cancel().catch(() => {});
    throw signal.reason;
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let failure: unknown;
  let hasFailure = false;
  const stop = (reason: unknown) => {
    if (hasFailure) return;
    hasFailure = true;
    failure = reason;
    reader.cancel(reason).catch(() => {});
  };
  const tooLarge = () =>
    new TransportError(
      LocalErrorCode.FrameTooLarge,
      `an event on the stream exceeds the ${maxEventBytes}-byte limit (maxBodyBytes)`,
      { details: { limit: maxEventBytes } },
    );
  const parser = createParser({
    // Bounds what the parser buffers for an event that spans several reads...
    maxBufferSize: maxEventBytes,
    onError(error) {
      if (error.type === "max-buffer-size-exceeded") stop(tooLarge());
    },
    onEvent(event) {
      if (hasFailure) return;
      // ...and this catches one that arrived within a single read.
      if (exceedsUtf8(event.data, maxEventBytes)) {
        stop(tooLarge());
        return;
      }
      options.onEvent(event);
    },
    onRetry(ms) {
      options.onRetry?.(ms);
    },
  });

  const onAbort = () => stop(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });

  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const armIdle = () => {
    if (!idleTimeoutMs) return;
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      stop(
        new TransportError(
          LocalErrorCode.TransportFailed,
          `event stream idle: no data for ${idleTimeoutMs}ms`,
          { details: { reason: IDLE_REASON, idleTimeoutMs } },
        ),
      );
    }, idleTimeoutMs);
  };

  try {
    armIdle();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (hasFailure) throw failure;
        throw new TransportError(
          LocalErrorCode.TransportFailed,
          `event stream broke: ${describe(error)}`,
          { cause: error },
        );
      }
      if (hasFailure) throw failure;
      if (chunk.done) break;
      armIdle();
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (hasFailure) throw failure;
    }
    parser.feed(decoder.decode());
  } finally {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    signal.removeEventListener("abort", onAbort);
  }
}

const encoder = new TextEncoder();

/** Whether `text` takes more than `limit` bytes in UTF-8, encoding it only when unclear. */
function exceedsUtf8(text: string, limit: number): boolean {
  // Each UTF-16 unit takes at least 1 and at most 3 UTF-8 bytes.
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return encoder.encode(text).byteLength > limit;
}

/** A readable reason for a low-level failure: undici hides the socket error in `cause`. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

/** True for the error `readEventStream` fails with when its idle watchdog fired. */
export function isIdleTimeout(error: unknown): boolean {
  return error instanceof TransportError && error.details.reason === IDLE_REASON;
}
