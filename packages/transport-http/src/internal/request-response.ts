import {
  classifyMessage,
  type JsonRpcId,
  LocalErrorCode,
  type ParsedMessage,
  sleep,
  TransportError,
} from "@awr/jsonrpc-core";
import type { ReconnectOptions } from "../http-transport-config.js";
import { SessionExpiredError } from "../session-expired-error.js";
import { readBodyText } from "./body-text.js";
import type { Cancellation } from "./cancellation.js";
import { describe, type EventSourceMessage, readEventStream } from "./event-stream.js";
import type { HttpChannel } from "./http-channel.js";
import type { HttpResponse } from "./http-exchange.js";
import { parseJsonBody } from "./json-body.js";
import { EVENT_STREAM, JSON_MEDIA_TYPE, mediaTypeOf } from "./media-type.js";
import { reconnectDelay } from "./reconnect-delay.js";

const POST_ACCEPT = `${JSON_MEDIA_TYPE}, ${EVENT_STREAM}`;

/** What reading one request's response needs from the transport. */
export interface ResponseHost {
  isPending(id: JsonRpcId): boolean;
  /** Routes one classified message (response, notification, server request, garbage). */
  dispatch(parsed: ParsedMessage): void;
  /** Parses an SSE data payload (size-checked) and routes it; returns the classification. */
  receiveData(data: string): ParsedMessage;
  /** GET that resumes a response stream after `lastEventId`; "unsupported" on 405. */
  openStream(lastEventId: string, cancel: Cancellation): Promise<HttpResponse | "unsupported">;
  serverRetryMs(): number | undefined;
  setServerRetryMs(ms: number): void;
  reconnect: ReconnectOptions;
  maxBodyBytes: number;
}

export function noResponse(id: JsonRpcId, reason?: string, cause?: unknown): TransportError {
  return new TransportError(
    LocalErrorCode.TransportFailed,
    `No response received for request ID ${String(id)}${reason ? `: ${reason}` : ""}`,
    cause === undefined ? { details: { id } } : { cause, details: { id } },
  );
}

export interface PostedMessage {
  url: URL;
  /** The serialised message. */
  body: string;
  /** Set for requests: their answer is read from the response and routed through the host. */
  requestId: JsonRpcId | undefined;
  sessionId: string | undefined;
  cancel: Cancellation;
  /** Sees the response's headers (a session id assigned at initialize) before its body is read. */
  onResponse?(response: HttpResponse): void;
}

/**
 * POSTs one JSON-RPC message and delivers what comes back: nothing for a notification or a
 * response (202), the answer for a request, read from a JSON body or from an SSE stream (with
 * the notifications and server requests interleaved before it). Rejects with the channel's
 * typed errors, PROTOCOL_VIOLATION for an unexpected body, or TRANSPORT_FAILED when no answer
 * came.
 */
export async function postMessage(
  channel: HttpChannel,
  host: ResponseHost,
  post: PostedMessage,
): Promise<void> {
  const response = await channel.send(
    {
      method: "POST",
      url: post.url,
      accept: POST_ACCEPT,
      body: post.body,
      sessionId: post.sessionId,
    },
    post.cancel,
  );
  post.onResponse?.(response);
  const id = post.requestId;
  if (id === undefined) {
    response.discard();
    return;
  }
  if (response.status === 202 || response.status === 204) {
    response.discard();
    throw noResponse(id, `the server answered HTTP ${response.status} without a body`);
  }
  const type = mediaTypeOf(response);
  if (type === EVENT_STREAM) return consumeSseResponse(host, response, id, post.cancel);
  if (type === JSON_MEDIA_TYPE || type === "") return consumeJsonResponse(host, response, id);
  response.discard();
  throw new TransportError(
    LocalErrorCode.ProtocolViolation,
    `unexpected content type ${type} in the response to request ID ${String(id)}`,
    { details: { id, contentType: type } },
  );
}

/**
 * Reads an `application/json` response: one message (or, tolerated, an array). A body that is
 * not JSON, or not JSON-RPC, fails the request with PROTOCOL_VIOLATION naming the problem.
 */
async function consumeJsonResponse(
  host: ResponseHost,
  response: HttpResponse,
  id: JsonRpcId,
): Promise<void> {
  const text = await readBodyText(response, host.maxBodyBytes);
  const value = parseJsonBody(
    text,
    `malformed JSON body in the response to request ID ${String(id)}`,
    { id },
  );
  const classified = (Array.isArray(value) ? value : [value]).map((item) => classifyMessage(item));
  const invalid = classified.find((parsed) => parsed.kind === "invalid");
  if (invalid?.kind === "invalid") {
    throw new TransportError(
      LocalErrorCode.ProtocolViolation,
      `the response to request ID ${String(id)} is not a JSON-RPC message: ${invalid.detail}`,
      { details: { id, reason: invalid.reason, body: text.slice(0, 1_000) } },
    );
  }
  for (const parsed of classified) host.dispatch(parsed);
  if (host.isPending(id)) throw noResponse(id, "the JSON body did not answer it");
}

interface StreamProgress {
  lastEventId: string | undefined;
  skipped: string | undefined;
}

function onStreamEvent(host: ResponseHost, progress: StreamProgress) {
  return (event: EventSourceMessage) => {
    if (event.id !== undefined) progress.lastEventId = event.id;
    // Events without data (the priming event that carries only an id) hold no message.
    if (!event.data || (event.event !== undefined && event.event !== "message")) return;
    const parsed = host.receiveData(event.data);
    if (parsed.kind === "invalid") progress.skipped = parsed.detail;
  };
}

/**
 * Reads a request's `text/event-stream` response until its answer arrives, delivering the
 * notifications and server requests interleaved before it. When the stream ends or breaks
 * without the answer and the server gave event ids, resumes through GET with `Last-Event-ID`
 * (with backoff) until the answer arrives, the request settles, or the retries run out.
 */
async function consumeSseResponse(
  host: ResponseHost,
  response: HttpResponse,
  id: JsonRpcId,
  cancel: Cancellation,
): Promise<void> {
  const progress: StreamProgress = { lastEventId: undefined, skipped: undefined };
  let broke: unknown;
  try {
    await readEventStream(response, {
      cancel,
      // The server should end the stream after the answer; we do not wait for it to.
      done: () => !host.isPending(id),
      maxEventBytes: host.maxBodyBytes,
      onRetry: (ms) => host.setServerRetryMs(ms),
      onEvent: onStreamEvent(host, progress),
    });
  } catch (error) {
    if (!host.isPending(id) || cancel.cancelled) return;
    if (error instanceof TransportError && error.code === LocalErrorCode.FrameTooLarge) throw error;
    broke = error;
  }
  if (!host.isPending(id)) return;
  if (progress.lastEventId === undefined) {
    if (broke !== undefined)
      throw noResponse(id, `the response stream broke: ${describe(broke)}`, broke);
    throw noResponse(
      id,
      progress.skipped
        ? `the stream ended (a malformed event was skipped: ${progress.skipped})`
        : undefined,
    );
  }
  await resume(host, id, cancel, progress, broke);
}

async function resume(
  host: ResponseHost,
  id: JsonRpcId,
  cancel: Cancellation,
  progress: StreamProgress,
  firstFailure: unknown,
): Promise<void> {
  let failures = 0;
  let lastFailure = firstFailure;
  let first = true;
  while (host.isPending(id)) {
    // The first resume goes at once (unless the server asked for a delay); later ones back off.
    const delay =
      first && host.serverRetryMs() === undefined
        ? 0
        : reconnectDelay(Math.max(1, failures), host.reconnect, host.serverRetryMs());
    first = false;
    try {
      await sleep(delay, cancel.toSignal());
    } catch {
      return;
    }
    let advanced = false;
    let unsupported = false;
    try {
      const stream = await host.openStream(progress.lastEventId as string, cancel);
      if (stream === "unsupported") {
        unsupported = true;
      } else {
        const before = progress.lastEventId;
        const onEvent = onStreamEvent(host, progress);
        await readEventStream(stream, {
          cancel,
          maxEventBytes: host.maxBodyBytes,
          onRetry: (ms) => host.setServerRetryMs(ms),
          onEvent: (event) => {
            onEvent(event);
            if (progress.lastEventId !== before) advanced = true;
          },
        });
      }
    } catch (error) {
      if (!host.isPending(id) || cancel.cancelled) return;
      if (error instanceof SessionExpiredError) throw error;
      if (error instanceof TransportError && error.code === LocalErrorCode.FrameTooLarge)
        throw error;
      lastFailure = error;
    }
    if (unsupported && host.isPending(id)) {
      throw noResponse(
        id,
        "the response stream ended and the server does not offer resuming it (GET 405)",
        lastFailure,
      );
    }
    failures = advanced ? 0 : failures + 1;
    if (failures > host.reconnect.maxRetries && host.isPending(id)) {
      throw noResponse(
        id,
        `resuming the response stream failed ${failures} times${lastFailure === undefined ? "" : ` (${describe(lastFailure)})`}`,
        lastFailure,
      );
    }
  }
}
