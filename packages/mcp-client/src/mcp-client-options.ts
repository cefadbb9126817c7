import type {
  JsonRpcNotification,
  JsonRpcRequest,
  RequestOptions,
  TransportCloseInfo,
} from "@awr/jsonrpc-core";
import type { ClientCapabilities, InitializeResult, Root, Tool } from "./mcp-types.js";

/** Answers one kind of server→client request (`elicitation/create`, `sampling/createMessage`…). */
export type ServerRequestHandler = (
  params: Record<string, unknown> | undefined,
  request: JsonRpcRequest,
) => unknown | Promise<unknown>;

export type RootsSource = readonly Root[] | (() => readonly Root[] | Promise<readonly Root[]>);

export interface MCPClientOptions {
  /** Capabilities to declare besides the ones the client derives (`roots` when roots are set). */
  capabilities?: ClientCapabilities;
  /** Roots to expose; setting them declares the `roots` capability and answers `roots/list`. */
  roots?: RootsSource;
  /** Default timeout in milliseconds for every request (else the transport's default). */
  requestTimeout?: number;
  /** Quiet period before refreshing tools after `notifications/tools/list_changed` (100 ms). */
  listChangedDebounceMs?: number;
  /** Handlers for other server→client requests, by method; without one, -32601 is answered. */
  requestHandlers?: Record<string, ServerRequestHandler>;
  /**
   * When the HTTP server no longer knows the session (404, or a 400 saying the session id is
   * unknown or missing, as servers built on the SDK's examples answer after a restart),
   * initialise a new session on the same transport and repeat the request that met the loss if
   * it is safe: every request but `tools/call`, and calls of tools annotated `readOnlyHint` or
   * `idempotentHint`; other tool calls reject with a SessionExpiredError saying they were not
   * repeated. Default true; MCPManager turns it off and heals with a fresh transport instead.
   */
  renewExpiredSessions?: boolean;
}

/** Per-call options: the transport's request options (timeout, signal, progress…). */
export type CallOptions = RequestOptions;

export interface ConnectOptions {
  signal?: AbortSignal;
  /** Milliseconds allowed for `initialize`. */
  timeout?: number;
}

export interface MCPClientEvents {
  /** The cached tool list changed (after a `list_changed` refresh or an explicit listTools()). */
  toolsChanged: [tools: readonly Tool[]];
  /** The connection ended; `error` is set when it broke rather than being closed. */
  close: [info: TransportCloseInfo];
  /** Something went wrong that no caller is waiting for (a failed background refresh…). */
  error: [error: Error];
  /** The client initialised again after its HTTP session expired. */
  reinitialized: [result: InitializeResult];
  /** Every server notification, after the method-specific handlers. */
  notification: [notification: JsonRpcNotification];
}
