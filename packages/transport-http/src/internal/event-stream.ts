import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Cancellation } from "./cancellation.js";
import type { HttpResponse } from "./http-exchange.js";

export type { EventSourceMessage };

/** `details.reason` of the error a read fails with when the stream went idle. */
export const IDLE_REASON = "idle";

export interface EventStreamOptions {
  /** The exchange's cancellation: once cancelled, the read rejects with its reason. */
  cancel: Cancellation;
  onEvent(event: EventSourceMessage): void;
  /** The server's `retry:` field, in milliseconds. */
  onRetry?(ms: number): void;
  /** Fail the read when no byte arrived for this long (0 or undefined: wait forever). */
  idleTimeoutMs?: number | undefined;
  /** Largest single event accepted, in bytes; the read fails with FRAME_TOO_LARGE past it. */
  maxEventBytes: number;
  /** Checked after each chunk: true ends the read (the rest of the stream is drained unread). */
  done?: () => boolean;
}

/** Ends a read from inside the parser's callbacks (consume() rejects with it). */
class StopReading extends Error {
  constructor(readonly error: unknown) {
    super("stop reading");
  }
}

/**
 * Reads a `text/event-stream` body incrementally with eventsource-parser, delivering each event
 * as it completes. Resolves when the server ends the stream cleanly; rejects with the
 * cancellation's reason when the exchange is cancelled, with TRANSPORT_FAILED when the
 * connection breaks or stays idle past `idleTimeoutMs`, and with FRAME_TOO_LARGE when one event
 * grows past `maxEventBytes`. An `onEvent` that throws ends the read with what it threw.
 */
export async function readEventStream(
  response: HttpResponse,
  options: EventStreamOptions,
): Promise<void> {
  const { idleTimeoutMs, maxEventBytes } = options;
  const tooLarge = () =>
    new StopReading(
      new TransportError(
        LocalErrorCode.FrameTooLarge,
        `an event on the stream exceeds the ${maxEventBytes}-byte limit (maxBodyBytes)`,
        { details: { limit: maxEventBytes } },
      ),
    );
  let stop: StopReading | undefined;
  const parser = createParser({
    // Bounds what the parser buffers for an event that spans several reads...
    maxBufferSize: maxEventBytes,
    onError(error) {
      if (error.type === "max-buffer-size-exceeded") stop ??= tooLarge();
    },
    onEvent(event) {
      if (stop) return;
      // ...and this catches one that arrived within a single read.
      if (exceedsUtf8(event.data, maxEventBytes)) {
        stop = tooLarge();
        return;
      }
      try {
        options.onEvent(event);
      } catch (error) {
        stop = new StopReading(error);
      }
    },
    onRetry(ms) {
      options.onRetry?.(ms);
    },
  });
  const decoder = new TextDecoder();
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let idle: TransportError | undefined;
  const armIdle = () => {
    if (!idleTimeoutMs) return;
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idle = new TransportError(
        LocalErrorCode.TransportFailed,
        `event stream idle: no data for ${idleTimeoutMs}ms`,
        { details: { reason: IDLE_REASON, idleTimeoutMs } },
      );
      response.discard();
    }, idleTimeoutMs);
  };
  try {
    armIdle();
    await response.consume((chunk) => {
      armIdle();
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (stop) throw stop;
      return options.done?.() === true ? false : undefined;
    });
    parser.feed(decoder.decode());
    if (stop) throw stop;
    if (idle) throw idle;
  } catch (error) {
    if (error instanceof StopReading) throw error.error;
    if (idle) throw idle;
    if (options.cancel.cancelled) throw options.cancel.reason;
    if (error instanceof TransportError) throw error;
    throw new TransportError(
      LocalErrorCode.TransportFailed,
      `event stream broke: ${describe(error)}`,
      {
        cause: error,
      },
    );
  } finally {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
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
