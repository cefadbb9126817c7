import { JsonRpcErrorCode } from "./error-codes.js";
import type { JsonRpcErrorObject } from "./types.js";

/**
 * A wire error: a JSON-RPC error object received from (or to be sent to) the peer.
 * `message` reads `MCP error <code>: <message>`; `wireMessage` is the peer's text unchanged.
 */
export class JsonRpcError extends Error {
  override readonly name = "JsonRpcError";
  readonly code: number;
  readonly wireMessage: string;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(`MCP error ${code}: ${message}`, options);
    this.code = code;
    this.wireMessage = message;
    this.data = data;
  }

  static fromObject(error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data);
  }

  /** The error object to put on the wire. */
  toObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.wireMessage }
      : { code: this.code, message: this.wireMessage, data: this.data };
  }

  static methodNotFound(method: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
  }

  static invalidParams(detail: string, data?: unknown): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
  }

  static internal(detail: string, data?: unknown): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.InternalError, `Internal error: ${detail}`, data);
  }
}

export function isJsonRpcError(value: unknown): value is JsonRpcError {
  return value instanceof JsonRpcError;
}
