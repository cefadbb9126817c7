/**
 * Wire error codes: numbers that travel inside JSON-RPC error objects. The standard JSON-RPC
 * table, MCP's own codes, and the bounds of the range reserved for implementation-defined
 * server errors.
 */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: a requested resource does not exist. */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25: the server needs the user to complete a URL elicitation first. */
  UrlElicitationRequired: -32042,
  /** Lowest code of the implementation-defined server error range. */
  ServerErrorRangeStart: -32099,
  /** Highest code of the implementation-defined server error range. */
  ServerErrorRangeEnd: -32000,
} as const;

export type JsonRpcErrorCode = (typeof JsonRpcErrorCode)[keyof typeof JsonRpcErrorCode];

/**
 * Local error codes: strings carried by errors this process raises about its own side of a
 * connection. They are never sent over the wire.
 */
export const LocalErrorCode = {
  /** The transport is closed, or closed while the request was pending. */
  TransportClosed: "TRANSPORT_CLOSED",
  /** Generic I/O failure of the transport (write failed, stream broke). */
  TransportFailed: "TRANSPORT_FAILED",
  /** The server process could not be started. */
  SpawnFailed: "SPAWN_FAILED",
  /** The server process exited while the transport was open. */
  ProcessExited: "PROCESS_EXITED",
  /** An inbound frame exceeded the configured maximum size. */
  FrameTooLarge: "FRAME_TOO_LARGE",
  /** The peer sent something that is not valid JSON-RPC, or a response nobody asked for. */
  ProtocolViolation: "PROTOCOL_VIOLATION",
  /** The server answered an HTTP request with a non-success status. */
  HttpStatus: "HTTP_STATUS",
  /** The server no longer knows the session id we sent (HTTP 404 with Mcp-Session-Id). */
  SessionExpired: "SESSION_EXPIRED",
  /** No response arrived within the request's timeout. */
  RequestTimeout: "REQUEST_TIMEOUT",
  /** The request was cancelled locally (by its caller's AbortSignal). */
  RequestCancelled: "REQUEST_CANCELLED",
  /** A message could not be serialised (cycles, BigInt). */
  SerializeFailed: "SERIALIZE_FAILED",
  /** Request ids ran out (more than 2^53 - 1 requests on one connection). */
  IdsExhausted: "IDS_EXHAUSTED",
} as const;

export type LocalErrorCode = (typeof LocalErrorCode)[keyof typeof LocalErrorCode];
