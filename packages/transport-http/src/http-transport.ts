import {
  type JsonRpcMessage,
  LocalErrorCode,
  type OutgoingContext,
  serializeMessage,
  TransportError,
} from "@awr/jsonrpc-core";
import { type HttpTransportConfig, resolveHttpConfig } from "./http-transport-config.js";
import { Cancellation } from "./internal/cancellation.js";
import { EventStreamListener, type ListenerState } from "./internal/event-stream-listener.js";
import type { HttpResponse } from "./internal/http-exchange.js";
import { HttpTransportBase } from "./internal/http-transport-base.js";
import { EVENT_STREAM, mediaTypeOf } from "./internal/media-type.js";
import { postMessage, type ResponseHost } from "./internal/request-response.js";
import { SessionExpiredError } from "./session-expired-error.js";
import { SseTransport } from "./sse-transport.js";

export type { ListenerState };

/**
 * MCP over Streamable HTTP (2025-03-26 and later): every message is a POST whose answer comes
 * back as JSON or as an SSE stream; an optional GET stream carries server-initiated messages.
 * The transport never retries a request and never re-initialises: the client does that. For
 * the legacy HTTP+SSE transport (2024-11-05) see {@link SseTransport}.
 */
export class HttpTransport extends HttpTransportBase {
  #sessionId: string | undefined;
  #serverRetryMs: number | undefined;
  #listener: EventStreamListener | undefined;
  readonly #responseHost: ResponseHost;

  constructor(config: HttpTransportConfig) {
    super(resolveHttpConfig(config));
    if (this.config.type !== "http") {
      throw new TypeError('HttpTransport speaks Streamable HTTP: use SseTransport for type "sse"');
    }
    this.#responseHost = {
      isPending: (id) => this.correlator.isPending(id),
      dispatch: (parsed) => this.dispatch(parsed),
      receiveData: (data) => this.receiveData(data),
      openStream: (lastEventId, cancel) => this.#openGetStream(lastEventId, cancel),
      serverRetryMs: () => this.#serverRetryMs,
      setServerRetryMs: (ms) => {
        this.#serverRetryMs = ms;
      },
      reconnect: this.config.reconnect,
      maxBodyBytes: this.config.maxBodyBytes,
    };
  }

  get mode(): "http" {
    return "http";
  }

  /** The `Mcp-Session-Id` the server assigned at `initialize`, until it expires or close(). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** `idle` until the GET listener starts; see ListenerState. */
  get listenerState(): ListenerState {
    return this.#listener?.state ?? "idle";
  }

  /**
   * Opens the GET stream for server-initiated messages now (normally done after
   * `notifications/initialized` when `listen` is set). Idempotent while it runs.
   */
  startListening(): void {
    if (!this.connected || this.#listener?.active) return;
    this.#listener = new EventStreamListener({
      openStream: (lastEventId, cancel) => this.#openGetStream(lastEventId, cancel),
      receive: (event) => this.receiveEvent(event),
      report: (error) => this.reportError(error),
      serverRetryMs: () => this.#serverRetryMs,
      setServerRetryMs: (ms) => {
        this.#serverRetryMs = ms;
      },
      reconnect: this.config.reconnect,
      idleTimeoutMs: this.config.idleTimeoutMs,
      maxEventBytes: this.config.maxBodyBytes,
    });
    this.#listener.start();
  }

  protected async openConnection(): Promise<void> {}

  protected async send(
    message: JsonRpcMessage,
    context: OutgoingContext,
    cancel: Cancellation,
  ): Promise<void> {
    const method = "method" in message ? message.method : undefined;
    const isInitialize = method === "initialize";
    // A new session starts with an initialize that carries no session id.
    const sentSession = isInitialize ? undefined : this.#sessionId;
    try {
      await postMessage(this.channel, this.#responseHost, {
        url: this.config.url,
        body: serializeMessage(message),
        requestId: context.requestId,
        sessionId: sentSession,
        cancel,
        onResponse: (response) => {
          const assigned = response.header("mcp-session-id");
          if (assigned) this.#sessionId = assigned;
          else if (isInitialize) this.#sessionId = undefined;
        },
      });
    } catch (error) {
      if (error instanceof SessionExpiredError) this.#sessionExpired(error.sessionId, true);
      throw error;
    }
    if (method === "notifications/initialized" && this.config.listen) this.startListening();
  }

  protected override async endSession(): Promise<void> {
    this.#listener?.stop();
    const sessionId = this.#sessionId;
    this.#sessionId = undefined;
    if (sessionId === undefined) return;
    // Best effort, bounded: 405 (not supported) and any failure are fine, we are leaving; the
    // session times out on the server anyway.
    const cancel = new Cancellation();
    const stop = cancel.after(this.config.closeTimeoutMs, () => new Error("DELETE timed out"));
    try {
      const response = await this.channel.send(
        { method: "DELETE", url: this.config.url, sessionId },
        cancel,
        () => true,
      );
      response.discard();
    } catch {
      // See above.
    } finally {
      stop();
    }
  }

  /**
   * The session is gone: forget it (the next `initialize` starts afresh) and stop the listener,
   * which would only meet the same answer. A listener that met it itself stops and reports it.
   */
  #sessionExpired(sessionId: string, stopListener: boolean): void {
    if (this.#sessionId === sessionId) this.#sessionId = undefined;
    if (stopListener) this.#listener?.stop();
  }

  /** GET on the endpoint for the standalone stream, or to resume one after `lastEventId`. */
  async #openGetStream(
    lastEventId: string | undefined,
    cancel: Cancellation,
  ): Promise<HttpResponse | "unsupported"> {
    // `cancel` ends with the transport: the listener is stopped by close(), and a resume runs
    // under its request's cancellation, which close() cancels.
    const sessionId = this.#sessionId;
    let response: HttpResponse;
    try {
      response = await this.channel.send(
        { method: "GET", url: this.config.url, accept: EVENT_STREAM, sessionId, lastEventId },
        cancel,
        (status) => status === 405,
      );
    } catch (error) {
      if (error instanceof SessionExpiredError) this.#sessionExpired(error.sessionId, false);
      throw error;
    }
    if (response.status === 405) {
      response.discard();
      return "unsupported";
    }
    if (mediaTypeOf(response) !== EVENT_STREAM) {
      response.discard();
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `GET ${this.config.url} answered with ${response.header("content-type") ?? "no content type"}, not ${EVENT_STREAM}`,
      );
    }
    return response;
  }
}

/**
 * Creates the transport for a config (not yet connected): {@link HttpTransport} for
 * `type: "http"` (the default), {@link SseTransport} for `type: "sse"`. Throws TypeError naming
 * a bad config field.
 */
export function createHttpTransport(config: HttpTransportConfig & { type: "sse" }): SseTransport;
export function createHttpTransport(config: HttpTransportConfig & { type?: "http" }): HttpTransport;
export function createHttpTransport(config: HttpTransportConfig): HttpTransport | SseTransport;
export function createHttpTransport(config: HttpTransportConfig): HttpTransport | SseTransport {
  return config?.type === "sse" ? new SseTransport(config) : new HttpTransport(config);
}
