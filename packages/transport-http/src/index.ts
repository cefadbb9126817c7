export {
  type CallMCPOptions,
  type CallMCPResult,
  callMCP,
  DEFAULT_CALL_TIMEOUT_MS,
  type InitializeMCPOptions,
  type InitializeMCPResult,
  initializeMCP,
} from "./call-mcp.js";
export { createHttpTransport, HttpTransport, type ListenerState } from "./http-transport.js";
export {
  type BearerTokenProvider,
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RECONNECT,
  type FetchLike,
  type HttpTransportConfig,
  type ReconnectOptions,
} from "./http-transport-config.js";
export { parseSSE } from "./parse-sse.js";
export { isSessionExpiredError, SessionExpiredError } from "./session-expired-error.js";
export { createSseTransport, SseTransport } from "./sse-transport.js";
