/**
 * Codes of the errors this package raises itself. Transport failures keep their own classes and
 * codes from @awr/jsonrpc-core (TransportError: TRANSPORT_CLOSED, PROCESS_EXITED,
 * SESSION_EXPIRED…; RequestTimeoutError: REQUEST_TIMEOUT); wire errors stay JsonRpcError.
 */
export const MCPClientErrorCode = {
  /** The server answered `initialize` with a protocol revision this client does not speak. */
  UnsupportedProtocolVersion: "UNSUPPORTED_PROTOCOL_VERSION",
  /** The client is not connected (never connected, or closed). */
  NotConnected: "NOT_CONNECTED",
  /** A caller passed something unusable (empty tool name, non-object arguments…). */
  InvalidArgument: "INVALID_ARGUMENT",
  /** The server answered with a result of the wrong shape. */
  InvalidResult: "INVALID_RESULT",
  /** A server entry in a config file is unusable (missing command/url, unset variable…). */
  InvalidConfig: "INVALID_CONFIG",
  /** The manager knows no server by that name. */
  UnknownServer: "UNKNOWN_SERVER",
  /** The manager knows no such tool, or a tool filter hides it. */
  UnknownTool: "UNKNOWN_TOOL",
  /** The server is disabled in the manager. */
  ServerDisabled: "SERVER_DISABLED",
  /** The server's circuit breaker is open: it failed too often recently; calls fail fast. */
  CircuitOpen: "CIRCUIT_OPEN",
  /** The server did not become ready within the call's timeout; `cause` holds its last error. */
  ServerUnavailable: "SERVER_UNAVAILABLE",
  /** The manager was closed. */
  ManagerClosed: "MANAGER_CLOSED",
} as const;

export type MCPClientErrorCode = (typeof MCPClientErrorCode)[keyof typeof MCPClientErrorCode];

export interface MCPClientErrorOptions {
  cause?: unknown;
  /** The last bytes the server wrote to stderr, when known. */
  stderrTail?: string | undefined;
  details?: Record<string, unknown>;
}

/** A failure detected by the client or manager itself; never sent over the wire. */
export class MCPClientError extends Error {
  override name = "MCPClientError";
  readonly code: MCPClientErrorCode;
  readonly stderrTail: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: MCPClientErrorCode, message: string, options: MCPClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.stderrTail = options.stderrTail;
    this.details = options.details ?? {};
  }
}

export function isMCPClientError(value: unknown): value is MCPClientError {
  return value instanceof MCPClientError;
}
