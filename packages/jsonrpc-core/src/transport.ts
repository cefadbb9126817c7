import type { NotifyOptions, RequestOptions } from "./request-options.js";
import type { JsonRpcNotification, JsonRpcParams, JsonRpcRequest } from "./types.js";

/** Why a transport closed: no `error` when `close()` was called, else what broke it. */
export interface TransportCloseInfo {
  error?: Error;
}

/**
 * Answers a request the server sent to the client (`ping`, `roots/list`, …). Return the result;
 * throw a JsonRpcError to answer with that error. Without a handler, requests are answered
 * with -32601 Method not found.
 */
export type IncomingRequestHandler = (request: JsonRpcRequest) => unknown | Promise<unknown>;

/**
 * The seam between the MCP protocol layer and delivery. Transports own framing, I/O, timeouts
 * and teardown; they do not retry or reconnect (the manager does).
 */
export interface MCPTransport {
  /** True between a successful `connect()` and the close; "usable", not "a socket is open". */
  readonly connected: boolean;
  /** Opens the transport (spawns the process, checks the URL…). Idempotent while open. */
  connect(options?: { signal?: AbortSignal }): Promise<void>;
  /** Sends a request and resolves with its result; rejects with JsonRpcError or a local error. */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<T>;
  /** Sends a notification; resolves once it was handed to the wire (HTTP: accepted). */
  notify(method: string, params?: JsonRpcParams, options?: NotifyOptions): Promise<void>;
  /** Closes the transport; pending requests reject with `Transport closed`. Idempotent. */
  close(): Promise<void>;
  onClose?: (info: TransportCloseInfo) => void;
  onError?: (error: Error) => void;
  onNotification?: (notification: JsonRpcNotification) => void;
  onRequest?: IncomingRequestHandler;
  /** Told the negotiated protocol version after `initialize` (HTTP sends it as a header). */
  setProtocolVersion?(version: string): void;
  /** The server's session id, for transports that have one. */
  readonly sessionId?: string | undefined;
}
