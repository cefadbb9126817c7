export { type BackoffOptions, backoffDelay, sleep } from "./backoff.js";
export {
  CorrelatedTransport,
  type CorrelatedTransportOptions,
  type TransportStats,
} from "./correlated-transport.js";
export {
  type CorrelatorOptions,
  type CorrelatorStats,
  DEFAULT_QUARANTINE_SIZE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestCorrelator,
  type ResponseDisposition,
} from "./correlator.js";
export { JsonRpcErrorCode, LocalErrorCode } from "./error-codes.js";
export { createIdAllocator, type IdAllocator, type IdAllocatorOptions } from "./id-allocator.js";
export { isJsonRpcError, JsonRpcError } from "./json-rpc-error.js";
export { createLinkedTransportPair, LinkedTransport } from "./linked-transport-pair.js";
export {
  isLocalError,
  LocalError,
  type LocalErrorOptions,
  RequestCancelledError,
  RequestTimeoutError,
  TransportError,
} from "./local-errors.js";
export {
  classifyMessage,
  DEFAULT_MAX_MESSAGE_BYTES,
  type InvalidMessage,
  InvalidReason,
  type ParsedMessage,
  type ParseOptions,
  parseMessage,
} from "./parser.js";
export {
  NOTIFICATION_CONTEXT,
  type NotifyOptions,
  type OutgoingContext,
  type RequestOptions,
  type SendMessage,
} from "./request-options.js";
export { serializeMessage } from "./serializer.js";
export type { IncomingRequestHandler, MCPTransport, TransportCloseInfo } from "./transport.js";
export {
  JSONRPC_VERSION,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccessResponse,
  type Progress,
} from "./types.js";
