import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import type { FetchLike } from "../http-transport-config.js";
import { type EventSourceMessage, readEventStream } from "./event-stream.js";
import { fetchFailure } from "./fetch-failure.js";
import { httpStatusError } from "./http-status-error.js";
import { linkSignals } from "./linked-signal.js";
import { EVENT_STREAM, mediaTypeOf } from "./media-type.js";

/** What the legacy channel needs from its transport. */
export interface LegacyHost {
  url: URL;
  fetch: FetchLike;
  headers(accept: string, contentType?: string): Promise<Headers>;
  receive(event: EventSourceMessage): void;
  /** The stream is gone after it was open: responses can no longer arrive. */
  lost(error: Error): void;
  maxEventBytes: number;
}

/**
 * The HTTP+SSE transport of protocol 2024-11-05: one long GET stream carries everything the
 * server sends; its first `endpoint` event names the URL to POST messages to. The session lives
 * in that stream, so a dropped stream cannot be resumed: it ends the connection.
 */
export class LegacySseChannel {
  readonly #host: LegacyHost;
  readonly #controller = new AbortController();
  #endpoint: URL | undefined;

  constructor(host: LegacyHost) {
    this.#host = host;
  }

  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /** Opens the stream and waits (at most `timeoutMs`) for the `endpoint` event. */
  async open(signal: AbortSignal | undefined, timeoutMs: number): Promise<void> {
    const { url } = this.#host;
    const timeout = AbortSignal.timeout(timeoutMs);
    const wait = linkSignals(signal ? [signal, timeout] : [timeout]);
    const stopWaiting = () => this.#controller.abort(wait.signal.reason);
    wait.signal.addEventListener("abort", stopWaiting, { once: true });
    try {
      let response: Response;
      try {
        response = await this.#host.fetch(url, {
          method: "GET",
          headers: await this.#host.headers(EVENT_STREAM),
          signal: this.#controller.signal,
        });
      } catch (error) {
        throw this.#controller.signal.aborted ? error : fetchFailure(error, "GET", url);
      }
      if (!response.ok)
        throw await httpStatusError(response, { method: "GET", url, sessionId: undefined });
      if (mediaTypeOf(response) !== EVENT_STREAM || !response.body) {
        await response.body?.cancel().catch(() => {});
        throw new TransportError(
          LocalErrorCode.ProtocolViolation,
          `legacy SSE endpoint ${url} answered with ${response.headers.get("content-type") ?? "no content type"}, not ${EVENT_STREAM}`,
        );
      }
      await this.#awaitEndpoint(response.body);
    } catch (error) {
      this.#controller.abort();
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new TransportError(
          LocalErrorCode.TransportFailed,
          `legacy SSE endpoint ${url} sent no endpoint event within ${timeoutMs}ms`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      wait.signal.removeEventListener("abort", stopWaiting);
      wait.dispose();
    }
  }

  #awaitEndpoint(body: ReadableStream<Uint8Array>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let opened = false;
      const onEvent = (event: EventSourceMessage) => {
        if (event.event === "endpoint") {
          if (opened) return;
          try {
            this.#endpoint = this.#resolveEndpoint(event.data);
          } catch (error) {
            reject(error);
            return;
          }
          opened = true;
          resolve();
          return;
        }
        if (opened && (!event.event || event.event === "message") && event.data) {
          this.#host.receive(event);
        }
      };
      readEventStream(body, {
        signal: this.#controller.signal,
        maxEventBytes: this.#host.maxEventBytes,
        onEvent,
      }).then(
        () => this.#ended(opened, reject, undefined),
        (error: unknown) => this.#ended(opened, reject, error),
      );
    });
  }

  #ended(opened: boolean, reject: (error: unknown) => void, error: unknown): void {
    if (this.#controller.signal.aborted) {
      if (!opened) reject(this.#controller.signal.reason);
      return;
    }
    const lost =
      error === undefined
        ? new TransportError(
            LocalErrorCode.TransportClosed,
            `the server closed the legacy SSE stream ${this.#host.url}`,
          )
        : error instanceof Error
          ? error
          : new Error(String(error));
    if (opened) this.#host.lost(lost);
    else reject(lost);
  }

  #resolveEndpoint(data: string): URL {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.#host.url);
    } catch (error) {
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `legacy SSE endpoint event is not a URL: ${data}`,
        {
          cause: error,
        },
      );
    }
    // Messages (and the bearer token) only go back to the origin we chose to trust.
    if (endpoint.origin !== this.#host.url.origin) {
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `legacy SSE endpoint ${endpoint} is on another origin than ${this.#host.url.origin}`,
      );
    }
    return endpoint;
  }

  /** POSTs one serialised message to the endpoint; the answer arrives on the stream. */
  async post(body: string, signal: AbortSignal): Promise<void> {
    const endpoint = this.#endpoint;
    if (!endpoint)
      throw new TransportError(LocalErrorCode.TransportClosed, "legacy SSE channel is not open");
    let response: Response;
    try {
      response = await this.#host.fetch(endpoint, {
        method: "POST",
        headers: await this.#host.headers(
          "application/json, text/event-stream",
          "application/json",
        ),
        body,
        signal,
      });
    } catch (error) {
      throw signal.aborted ? error : fetchFailure(error, "POST", endpoint);
    }
    if (!response.ok)
      throw await httpStatusError(response, {
        method: "POST",
        url: endpoint,
        sessionId: undefined,
      });
    await response.body?.cancel().catch(() => {});
  }

  close(): void {
    this.#controller.abort(new TransportError(LocalErrorCode.TransportClosed, "Transport closed"));
  }
}
