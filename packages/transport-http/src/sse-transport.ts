import {
  type JsonRpcMessage,
  LocalErrorCode,
  type OutgoingContext,
  serializeMessage,
  TransportError,
} from "@awr/jsonrpc-core";
import { type HttpTransportConfig, resolveHttpConfig } from "./http-transport-config.js";
import { Cancellation } from "./internal/cancellation.js";
import { type EventSourceMessage, readEventStream } from "./internal/event-stream.js";
import type { HttpResponse } from "./internal/http-exchange.js";
import { HttpTransportBase } from "./internal/http-transport-base.js";
import { EVENT_STREAM, mediaTypeOf } from "./internal/media-type.js";

/**
 * The legacy HTTP+SSE transport of protocol 2024-11-05: one long GET stream carries everything
 * the server sends; its first `endpoint` event names the URL to POST messages to. The session
 * lives in that stream, so a dropped stream cannot be resumed: it ends the connection. Only the
 * endpoint's origin is trusted: an `endpoint` on another origin fails `connect()`.
 */
export class SseTransport extends HttpTransportBase {
  #endpoint: URL | undefined;

  constructor(config: HttpTransportConfig) {
    super(resolveHttpConfig({ ...config, type: "sse" }));
  }

  get mode(): "sse" {
    return "sse";
  }

  /** The URL messages are POSTed to, once the server named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /** Opens the stream and waits (at most `timeout`) for the `endpoint` event. */
  protected async openConnection(options: { signal?: AbortSignal }): Promise<void> {
    const { url, timeout } = this.config;
    const opening = new Cancellation();
    const stopFollowing = opening.follow(options.signal);
    const stopTimer = opening.after(
      timeout,
      () =>
        new TransportError(
          LocalErrorCode.TransportFailed,
          `legacy SSE endpoint ${url} sent no endpoint event within ${timeout}ms`,
        ),
    );
    // The stream lives as long as the transport; `opening` only bounds the wait for `endpoint`.
    const stopOpening = opening.onCancel((reason) => this.lifetime.cancel(reason));
    try {
      const response = await this.channel.send(
        { method: "GET", url, accept: EVENT_STREAM },
        this.lifetime,
      );
      if (mediaTypeOf(response) !== EVENT_STREAM) {
        response.discard();
        throw new TransportError(
          LocalErrorCode.ProtocolViolation,
          `legacy SSE endpoint ${url} answered with ${response.header("content-type") ?? "no content type"}, not ${EVENT_STREAM}`,
        );
      }
      await this.#awaitEndpoint(response);
    } catch (error) {
      this.lifetime.cancel(error);
      throw opening.cancelled ? opening.reason : error;
    } finally {
      stopOpening();
      stopTimer();
      stopFollowing();
    }
  }

  protected async send(
    message: JsonRpcMessage,
    _context: OutgoingContext,
    cancel: Cancellation,
  ): Promise<void> {
    const endpoint = this.#endpoint;
    if (!endpoint)
      throw new TransportError(LocalErrorCode.TransportClosed, "legacy SSE stream is not open");
    // The answer arrives on the stream; the POST's own body is only an acknowledgement.
    const response = await this.channel.send(
      {
        method: "POST",
        url: endpoint,
        accept: `application/json, ${EVENT_STREAM}`,
        body: serializeMessage(message),
      },
      cancel,
    );
    response.discard();
  }

  #awaitEndpoint(response: HttpResponse): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let opened = false;
      const onEvent = (event: EventSourceMessage) => {
        if (event.event === "endpoint") {
          if (opened) return;
          this.#endpoint = this.#resolveEndpoint(event.data);
          opened = true;
          resolve();
          return;
        }
        if (opened) this.receiveEvent(event);
      };
      readEventStream(response, {
        cancel: this.lifetime,
        maxEventBytes: this.config.maxBodyBytes,
        onEvent,
      }).then(
        () => this.#ended(opened, reject, undefined),
        (error: unknown) => this.#ended(opened, reject, error),
      );
    });
  }

  #ended(opened: boolean, reject: (error: unknown) => void, error: unknown): void {
    if (this.lifetime.cancelled) {
      if (!opened) reject(this.lifetime.reason);
      return;
    }
    const lost =
      error === undefined
        ? new TransportError(
            LocalErrorCode.TransportClosed,
            `the server closed the legacy SSE stream ${this.config.url}`,
          )
        : error instanceof Error
          ? error
          : new Error(String(error));
    if (opened) this.connectionLost(lost);
    else reject(lost);
  }

  #resolveEndpoint(data: string): URL {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.config.url);
    } catch (error) {
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `legacy SSE endpoint event is not a URL: ${data}`,
        { cause: error },
      );
    }
    // Messages (and the bearer token) only go back to the origin we chose to trust.
    if (endpoint.origin !== this.config.url.origin) {
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `legacy SSE endpoint ${endpoint} is on another origin than ${this.config.url.origin}`,
      );
    }
    return endpoint;
  }
}

/** Creates a {@link SseTransport} (not yet connected). */
export function createSseTransport(config: HttpTransportConfig): SseTransport {
  return new SseTransport(config);
}
