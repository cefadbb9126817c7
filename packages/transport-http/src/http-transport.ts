import {
  CorrelatedTransport,
  type JsonRpcId,
  type JsonRpcMessage,
  LocalErrorCode,
  type OutgoingContext,
  type ParsedMessage,
  parseMessage,
  serializeMessage,
  TransportError,
} from "@awr/jsonrpc-core";
import {
  type HttpTransportConfig,
  type ResolvedHttpConfig,
  resolveHttpConfig,
} from "./http-transport-config.js";
import type { EventSourceMessage } from "./internal/event-stream.js";
import { EventStreamListener, type ListenerState } from "./internal/event-stream-listener.js";
import { fetchFailure } from "./internal/fetch-failure.js";
import { httpStatusError } from "./internal/http-status-error.js";
import { LegacySseChannel } from "./internal/legacy-sse-channel.js";
import { type LinkedSignal, linkSignals } from "./internal/linked-signal.js";
import { EVENT_STREAM, JSON_MEDIA_TYPE, mediaTypeOf } from "./internal/media-type.js";
import {
  consumeJsonResponse,
  consumeSseResponse,
  noResponse,
  type ResponseHost,
} from "./internal/request-response.js";
import { SessionExpiredError } from "./session-expired-error.js";

export type { ListenerState };

const POST_ACCEPT = `${JSON_MEDIA_TYPE}, ${EVENT_STREAM}`;

/**
 * MCP over HTTP. In `"http"` mode (Streamable HTTP, 2025-03-26 and later) every message is a
 * POST whose answer comes back as JSON or as an SSE stream; an optional GET stream carries
 * server-initiated messages. In `"sse"` mode (the legacy 2024-11-05 HTTP+SSE transport) one GET
 * stream carries everything and messages are POSTed to the URL its `endpoint` event names.
 * The transport never retries a request and never re-initialises: the client does that.
 */
export class HttpTransport extends CorrelatedTransport {
  readonly #config: ResolvedHttpConfig;
  /** Aborted by close(): stops every fetch and stream this transport started. */
  readonly #lifetime = new AbortController();
  /**
   * Signals of the writes in flight. close() aborts them one by one rather than each write
   * listening on #lifetime, so a busy transport never piles listeners onto one signal.
   */
  readonly #inFlight = new Set<LinkedSignal>();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #serverRetryMs: number | undefined;
  #listener: EventStreamListener | undefined;
  #legacy: LegacySseChannel | undefined;
  readonly #responseHost: ResponseHost;

  constructor(config: HttpTransportConfig) {
    const resolved = resolveHttpConfig(config);
    super({ timeout: resolved.timeout, maxMessageBytes: resolved.maxBodyBytes });
    this.#config = resolved;
    this.#responseHost = {
      isPending: (id) => this.correlator.isPending(id),
      dispatch: (parsed) => this.dispatch(parsed),
      receiveData: (data) => this.#receiveData(data),
      openStream: (lastEventId, signal) => this.#openGetStream(lastEventId, signal),
      serverRetryMs: () => this.#serverRetryMs,
      setServerRetryMs: (ms) => {
        this.#serverRetryMs = ms;
      },
      reconnect: resolved.reconnect,
      maxBodyBytes: resolved.maxBodyBytes,
    };
  }

  get mode(): "http" | "sse" {
    return this.#config.type;
  }

  get url(): URL {
    return new URL(this.#config.url);
  }

  /** The `Mcp-Session-Id` the server assigned at `initialize`, until it expires or close(). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** `idle` until the GET listener starts; see ListenerState. */
  get listenerState(): ListenerState {
    return this.#listener?.state ?? "idle";
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /**
   * Opens the GET stream for server-initiated messages now (normally done after
   * `notifications/initialized` when `listen` is set). Idempotent while it runs.
   */
  startListening(): void {
    if (this.#config.type !== "http" || !this.connected) return;
    if (this.#listener?.active) return;
    this.#listener = new EventStreamListener({
      openStream: (lastEventId, signal) => this.#openGetStream(lastEventId, signal),
      receive: (event) => this.#receiveEvent(event),
      report: (error) => this.reportError(error),
      serverRetryMs: () => this.#serverRetryMs,
      setServerRetryMs: (ms) => {
        this.#serverRetryMs = ms;
      },
      reconnect: this.#config.reconnect,
      idleTimeoutMs: this.#config.idleTimeoutMs,
      maxEventBytes: this.#config.maxBodyBytes,
    });
    this.#listener.start();
  }

  protected async openConnection(options: { signal?: AbortSignal }): Promise<void> {
    if (this.#config.type === "http") return;
    this.#legacy = new LegacySseChannel({
      url: this.#config.url,
      fetch: this.#config.fetch,
      headers: (accept, contentType) => this.#headers(accept, contentType, undefined),
      receive: (event) => this.#receiveEvent(event),
      lost: (error) => this.connectionLost(error),
      maxEventBytes: this.#config.maxBodyBytes,
    });
    await this.#legacy.open(options.signal, this.#config.timeout);
  }

  protected async writeMessage(message: JsonRpcMessage, context: OutgoingContext): Promise<void> {
    const isRequest = "method" in message && "id" in message;
    // Requests end when the correlator settles them (context.signal); anything else we send is
    // bounded by the timeout here, so a server that never accepts a notification cannot hang us.
    const timeout = isRequest ? undefined : AbortSignal.timeout(this.#config.timeout);
    if (this.#lifetime.signal.aborted) throw this.closedError();
    const linked = linkSignals(timeout ? [context.signal, timeout] : [context.signal]);
    this.#inFlight.add(linked);
    const { signal } = linked;
    try {
      if (this.#legacy) await this.#legacy.post(serializeMessage(message), signal);
      else await this.#post(message, context.requestId, signal);
    } catch (error) {
      if (this.#lifetime.signal.aborted) throw this.closedError();
      if (context.signal.aborted) throw context.signal.reason;
      if (timeout?.aborted) {
        const what = "method" in message ? message.method : "response";
        throw new TransportError(
          LocalErrorCode.RequestTimeout,
          `Notify timeout after ${this.#config.timeout}ms: ${what}`,
          { cause: error, details: { timeoutMs: this.#config.timeout } },
        );
      }
      throw error;
    } finally {
      this.#inFlight.delete(linked);
      linked.dispose();
    }
  }

  protected async closeConnection(): Promise<void> {
    this.#listener?.stop();
    this.#legacy?.close();
    const closed = this.closedError();
    this.#lifetime.abort(closed);
    for (const linked of this.#inFlight) linked.abort(closed);
    const sessionId = this.#sessionId;
    this.#sessionId = undefined;
    if (this.#config.type === "http" && sessionId !== undefined)
      await this.#deleteSession(sessionId);
  }

  /** Ends the server's session. 405 (not supported) and any failure are fine: we are leaving. */
  async #deleteSession(sessionId: string): Promise<void> {
    const signal = AbortSignal.timeout(this.#config.closeTimeoutMs);
    try {
      const headers = await Promise.race([
        this.#headers(undefined, undefined, sessionId),
        new Promise<never>((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        ),
      ]);
      const response = await this.#config.fetch(this.#config.url, {
        method: "DELETE",
        headers,
        signal,
      });
      await response.body?.cancel().catch(() => {});
    } catch {
      // Best effort: the session times out on the server anyway.
    }
  }

  async #post(
    message: JsonRpcMessage,
    requestId: JsonRpcId | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const url = this.#config.url;
    const isInitialize = "method" in message && message.method === "initialize";
    // A new session starts with an initialize that carries no session id.
    const sentSession = isInitialize ? undefined : this.#sessionId;
    const headers = await this.#headers(POST_ACCEPT, JSON_MEDIA_TYPE, sentSession);
    const body = serializeMessage(message);
    let response: Response;
    try {
      response = await this.#config.fetch(url, { method: "POST", headers, body, signal });
    } catch (error) {
      throw signal.aborted ? error : fetchFailure(error, "POST", url);
    }
    const assigned = response.headers.get("mcp-session-id");
    if (assigned) this.#sessionId = assigned;
    else if (isInitialize && response.ok) this.#sessionId = undefined;
    if (!response.ok) {
      const error = await httpStatusError(response, {
        method: "POST",
        url,
        sessionId: sentSession,
      });
      if (error instanceof SessionExpiredError) this.#sessionExpired(error.sessionId, true);
      throw error;
    }
    if (requestId === undefined) {
      await response.body?.cancel().catch(() => {});
      if (
        "method" in message &&
        message.method === "notifications/initialized" &&
        this.#config.listen
      ) {
        this.startListening();
      }
      return;
    }
    const type = mediaTypeOf(response);
    if (response.status === 202 || response.status === 204 || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw noResponse(requestId, `the server answered HTTP ${response.status} without a body`);
    }
    if (type === EVENT_STREAM)
      return consumeSseResponse(this.#responseHost, response, requestId, signal);
    if (type === JSON_MEDIA_TYPE || type === "")
      return consumeJsonResponse(this.#responseHost, response, requestId);
    await response.body.cancel().catch(() => {});
    throw new TransportError(
      LocalErrorCode.ProtocolViolation,
      `unexpected content type ${type} in the response to request ID ${String(requestId)}`,
      { details: { id: requestId, contentType: type } },
    );
  }

  /**
   * The session is gone: forget it (the next `initialize` starts afresh) and stop the listener,
   * which would only meet the same 404. A listener that met it itself stops and reports it.
   */
  #sessionExpired(sessionId: string, stopListener: boolean): void {
    if (this.#sessionId === sessionId) this.#sessionId = undefined;
    if (stopListener) this.#listener?.stop();
  }

  /** GET on the endpoint for the standalone stream, or to resume one after `lastEventId`. */
  async #openGetStream(
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<Response | "unsupported"> {
    const url = this.#config.url;
    const sessionId = this.#sessionId;
    const headers = await this.#headers(EVENT_STREAM, undefined, sessionId);
    if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
    let response: Response;
    try {
      response = await this.#config.fetch(url, {
        method: "GET",
        headers,
        // Both callers' signals abort on close(): the listener is stopped, and a resume runs
        // under its request's signal, which is linked to the transport's lifetime.
        signal,
      });
    } catch (error) {
      throw signal.aborted || this.#lifetime.signal.aborted
        ? error
        : fetchFailure(error, "GET", url);
    }
    if (response.status === 405) {
      await response.body?.cancel().catch(() => {});
      return "unsupported";
    }
    if (!response.ok) {
      const error = await httpStatusError(response, { method: "GET", url, sessionId });
      if (error instanceof SessionExpiredError) this.#sessionExpired(error.sessionId, false);
      throw error;
    }
    if (mediaTypeOf(response) !== EVENT_STREAM || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `GET ${url} answered with ${response.headers.get("content-type") ?? "no content type"}, not ${EVENT_STREAM}`,
      );
    }
    return response;
  }

  #receiveEvent(event: EventSourceMessage): void {
    if (!event.data || (event.event !== undefined && event.event !== "message")) return;
    this.#receiveData(event.data);
  }

  #receiveData(data: string): ParsedMessage {
    const parsed = parseMessage(data, { maxBytes: this.#config.maxBodyBytes });
    this.dispatch(parsed);
    return parsed;
  }

  /** The headers every call carries: custom ones, then auth, session and protocol version. */
  async #headers(
    accept: string | undefined,
    contentType: string | undefined,
    sessionId: string | undefined,
  ): Promise<Headers> {
    const headers = new Headers(this.#config.headers);
    if (this.#config.token) {
      let token: string | undefined;
      try {
        token = await this.#config.token();
      } catch (error) {
        throw new TransportError(
          LocalErrorCode.TransportFailed,
          `the bearer token provider failed: ${(error as Error)?.message ?? String(error)}`,
          {
            cause: error,
          },
        );
      }
      if (token) headers.set("authorization", `Bearer ${token}`);
    }
    if (accept) headers.set("accept", accept);
    if (contentType) headers.set("content-type", contentType);
    if (sessionId !== undefined) headers.set("mcp-session-id", sessionId);
    if (this.#protocolVersion) headers.set("mcp-protocol-version", this.#protocolVersion);
    return headers;
  }
}

/** Creates an HttpTransport (not yet connected). Throws TypeError naming a bad config field. */
export function createHttpTransport(config: HttpTransportConfig): HttpTransport {
  return new HttpTransport(config);
}
