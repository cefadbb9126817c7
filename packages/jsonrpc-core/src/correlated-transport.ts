import { type CorrelatorStats, RequestCorrelator } from "./correlator.js";
import { LocalErrorCode } from "./error-codes.js";
import type { IdAllocator } from "./id-allocator.js";
import { JsonRpcError } from "./json-rpc-error.js";
import { TransportError } from "./local-errors.js";
import { classifyMessage, type ParsedMessage, type ParseOptions, parseMessage } from "./parser.js";
import {
  NOTIFICATION_CONTEXT,
  type NotifyOptions,
  type OutgoingContext,
  type RequestOptions,
} from "./request-options.js";
import type { IncomingRequestHandler, MCPTransport, TransportCloseInfo } from "./transport.js";
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
} from "./types.js";

export interface CorrelatedTransportOptions {
  /** Default per-request timeout in milliseconds (60 000). */
  timeout?: number;
  ids?: IdAllocator;
  quarantineSize?: number;
  /** Largest inbound message accepted, in bytes (4 MiB). */
  maxMessageBytes?: number;
}

export interface TransportStats extends CorrelatorStats {
  /** Inbound messages that were not valid JSON-RPC (reported through onError, then skipped). */
  malformedMessages: number;
}

type State = "idle" | "opening" | "open" | "closed";

/**
 * Shared machinery for transports: the lifecycle, a RequestCorrelator, routing of inbound
 * messages (responses, progress, notifications, server requests, garbage), and idempotent close.
 * A concrete transport supplies three things: how to open, how to write one message, how to
 * close; and it feeds inbound text or values to `receiveText` / `receiveValue`.
 */
export abstract class CorrelatedTransport implements MCPTransport {
  onClose?: (info: TransportCloseInfo) => void;
  onError?: (error: Error) => void;
  onNotification?: (notification: JsonRpcNotification) => void;
  onRequest?: IncomingRequestHandler;

  protected readonly correlator: RequestCorrelator;
  readonly #parseOptions: ParseOptions;
  #state: State = "idle";
  #opening: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #lostWith: Error | undefined;
  #malformed = 0;

  constructor(options: CorrelatedTransportOptions = {}) {
    this.#parseOptions =
      options.maxMessageBytes === undefined ? {} : { maxBytes: options.maxMessageBytes };
    this.correlator = new RequestCorrelator({
      send: (message, context) => this.#write(message, context),
      ids: options.ids,
      defaultTimeout: options.timeout,
      quarantineSize: options.quarantineSize,
      onError: (error) => this.reportError(error),
    });
  }

  get connected(): boolean {
    return this.#state === "open";
  }

  get stats(): TransportStats {
    return { ...this.correlator.stats, malformedMessages: this.#malformed };
  }

  connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (this.#state === "open") return Promise.resolve();
    if (this.#state === "closed")
      return Promise.reject(
        this.closedError("cannot connect a closed transport: create a new one"),
      );
    this.#opening ??= (async () => {
      this.#state = "opening";
      try {
        await this.openConnection(options);
      } catch (error) {
        this.#state = "closed";
        this.correlator.close(error instanceof Error ? error : this.closedError());
        throw error;
      }
      if (this.#state === "opening") this.#state = "open";
    })();
    return this.#opening;
  }

  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options: RequestOptions = {},
  ): Promise<T> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (this.#state !== "open") return Promise.reject(this.closedError());
    return this.correlator.request<T>(method, params, options);
  }

  async notify(method: string, params?: JsonRpcParams, options: NotifyOptions = {}): Promise<void> {
    if (options.signal?.aborted) throw options.signal.reason;
    if (this.#state !== "open") throw this.closedError();
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    await this.#write(
      message,
      options.signal ? { signal: options.signal, onSettled() {} } : NOTIFICATION_CONTEXT,
    );
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const wasOpen = this.#state !== "closed";
      // After connectionLost() this still runs, so transports always get to release resources.
      this.#state = "closed";
      // Pending callers learn at once; they do not wait for the teardown (a DELETE, a grace period).
      this.correlator.close(this.closedError());
      try {
        await this.closeConnection();
      } finally {
        if (wasOpen) this.onClose?.({});
      }
    })();
    return this.#closing;
  }

  /** Opens the underlying connection; throw to fail `connect()`. */
  protected abstract openConnection(options: { signal?: AbortSignal }): Promise<void>;
  /**
   * Writes one message; reject when it could not be handed to the wire. For a request a
   * transport may return `undefined` instead and report a failed write with
   * `correlator.fail(context.requestId, error)` (see SendMessage).
   */
  protected abstract writeMessage(
    message: JsonRpcMessage,
    context: OutgoingContext,
  ): Promise<void> | undefined;
  /** Releases the underlying connection; called once, by `close()`. */
  protected abstract closeConnection(): Promise<void>;

  /**
   * The error for using a transport that is not open; its `cause` is what broke the connection,
   * if something did. Transports may override it to add their stderr tail.
   */
  protected closedError(message = "Transport closed"): TransportError {
    return new TransportError(
      LocalErrorCode.TransportClosed,
      message,
      this.#lostWith ? { cause: this.#lostWith } : {},
    );
  }

  /** Feeds one inbound text frame (one JSON-RPC message). */
  protected receiveText(text: string): void {
    this.dispatch(parseMessage(text, this.#parseOptions));
  }

  /** Feeds one inbound, already-decoded JSON value. */
  protected receiveValue(value: unknown): void {
    this.dispatch(classifyMessage(value));
  }

  /** Routes one classified inbound message. */
  protected dispatch(parsed: ParsedMessage): void {
    switch (parsed.kind) {
      case "result":
      case "error":
        this.correlator.handleResponse(parsed.message);
        return;
      case "notification":
        if (
          parsed.message.method === "notifications/progress" &&
          this.correlator.handleProgress(parsed.message.params)
        )
          return;
        this.onNotification?.(parsed.message);
        return;
      case "request":
        void this.#answer(parsed.message);
        return;
      case "invalid":
        this.#malformed++;
        this.reportError(
          new TransportError(
            LocalErrorCode.ProtocolViolation,
            `skipped a malformed message: ${parsed.detail}`,
            {
              details: { reason: parsed.reason },
            },
          ),
        );
    }
  }

  /**
   * The connection broke underneath us: reject everything pending with `error` (so its stderr
   * tail or exit status stays visible), and emit onClose once. Later calls reject with
   * `Transport closed` whose `cause` is `error`. `close()` must still be called to release
   * resources; it does not emit onClose again.
   */
  protected connectionLost(error: Error): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#lostWith = error;
    this.correlator.close(error);
    this.onClose?.({ error });
  }

  protected reportError(error: Error): void {
    this.onError?.(error);
  }

  #write(message: JsonRpcMessage, context: OutgoingContext): Promise<void> | undefined {
    if (this.#state === "closed") return Promise.reject(this.closedError());
    return this.writeMessage(message, context);
  }

  async #answer(request: JsonRpcRequest): Promise<void> {
    let response: JsonRpcResponse;
    try {
      if (!this.onRequest) throw JsonRpcError.methodNotFound(request.method);
      const result = await this.onRequest(request);
      response = { jsonrpc: "2.0", id: request.id, result: result ?? {} };
    } catch (error) {
      const wire =
        error instanceof JsonRpcError
          ? error
          : JsonRpcError.internal(error instanceof Error ? error.message : String(error));
      response = { jsonrpc: "2.0", id: request.id, error: wire.toObject() };
    }
    if (this.#state !== "open") return;
    await this.#write(response, NOTIFICATION_CONTEXT)?.catch((error: unknown) => {
      this.reportError(error instanceof Error ? error : new Error(String(error)));
    });
  }
}
