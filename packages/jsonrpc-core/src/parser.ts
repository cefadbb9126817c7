import { JsonRpcErrorCode } from "./error-codes.js";
import { utf8ByteLength } from "./internal/utf8-length.js";
import type {
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcSuccessResponse,
} from "./types.js";

/** Why an input is not one valid JSON-RPC 2.0 message. */
export const InvalidReason = {
  Oversized: "oversized",
  NotJson: "not_json",
  Batch: "batch",
  NotObject: "not_object",
  BadVersion: "bad_version",
  BadId: "bad_id",
  NullIdRequest: "null_id_request",
  BadMethod: "bad_method",
  BadParams: "bad_params",
  ResultAndError: "result_and_error",
  NeitherResultNorError: "neither_result_nor_error",
  BadErrorObject: "bad_error_object",
  MethodAndResponse: "method_and_response",
  /** A member JSON-RPC does not define (a strict reader, such as MCP's, refuses it). */
  UnknownMember: "unknown_member",
  /** The members are all there but one has a shape the protocol on top (MCP) does not allow. */
  BadShape: "bad_shape",
} as const;
export type InvalidReason = (typeof InvalidReason)[keyof typeof InvalidReason];

export interface InvalidMessage {
  kind: "invalid";
  reason: InvalidReason;
  /** A sentence naming the problem, for logs and error responses. */
  detail: string;
  /** The id, when one could be read, so a server can address its error response. */
  id: JsonRpcId | null;
  /** The wire code a server would answer with: -32700 for unreadable input, else -32600. */
  errorCode: typeof JsonRpcErrorCode.ParseError | typeof JsonRpcErrorCode.InvalidRequest;
}

/** The verdict on one input: exactly one of five kinds. Never thrown, always returned. */
export type ParsedMessage =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "result"; message: JsonRpcSuccessResponse }
  | { kind: "error"; message: JsonRpcErrorResponse }
  | InvalidMessage;

export interface ParseOptions {
  /** Refuse inputs longer than this many UTF-8 bytes without parsing them. Default 4 MiB. */
  maxBytes?: number;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

function invalid(
  reason: InvalidReason,
  detail: string,
  id: JsonRpcId | null = null,
): InvalidMessage {
  const errorCode =
    reason === InvalidReason.NotJson || reason === InvalidReason.Oversized
      ? JsonRpcErrorCode.ParseError
      : JsonRpcErrorCode.InvalidRequest;
  return { kind: "invalid", reason, detail, id, errorCode };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isValidId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/**
 * Parses and classifies one JSON-RPC 2.0 message from text. Never throws: bad input comes back
 * as `{ kind: "invalid" }` with a reason. Batches (arrays) are refused: MCP 2025-06-18 and later
 * do not use them.
 */
export function parseMessage(text: string, options: ParseOptions = {}): ParsedMessage {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // A UTF-16 unit takes at most 3 UTF-8 bytes: only long inputs need counting.
  if (
    text.length > maxBytes ||
    (text.length * 3 > maxBytes && utf8ByteLength(text, maxBytes + 1) > maxBytes)
  ) {
    return invalid(InvalidReason.Oversized, `message is larger than the ${maxBytes}-byte limit`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(InvalidReason.NotJson, `not JSON: ${(error as Error).message}`);
  }
  return classifyMessage(value);
}

/**
 * Classifies an already-decoded value (for transports whose framing decodes JSON itself). A
 * valid message is returned as the value itself (members beyond JSON-RPC's are kept), not a copy.
 */
export function classifyMessage(value: unknown): ParsedMessage {
  if (Array.isArray(value)) {
    return invalid(InvalidReason.Batch, "batches are not supported: send one message per frame");
  }
  if (!isPlainObject(value))
    return invalid(InvalidReason.NotObject, "a message must be a JSON object");

  const hasId = "id" in value;
  const rawId = value.id;
  const readableId = isValidId(rawId) ? rawId : null;
  if (value.jsonrpc !== "2.0") {
    return invalid(
      InvalidReason.BadVersion,
      'the "jsonrpc" member must be exactly "2.0"',
      readableId,
    );
  }
  if (hasId && rawId !== null && !isValidId(rawId)) {
    return invalid(InvalidReason.BadId, "an id must be a string or an integer");
  }

  const hasMethod = "method" in value;
  const hasResult = "result" in value;
  const hasError = "error" in value;

  if (hasMethod) {
    if (hasResult || hasError) {
      return invalid(
        InvalidReason.MethodAndResponse,
        "a message cannot have both a method and a result or error",
        readableId,
      );
    }
    if (typeof value.method !== "string" || value.method.length === 0) {
      return invalid(
        InvalidReason.BadMethod,
        'the "method" member must be a non-empty string',
        readableId,
      );
    }
    if ("params" in value && !isPlainObject(value.params) && !Array.isArray(value.params)) {
      return invalid(
        InvalidReason.BadParams,
        'the "params" member must be an object or an array',
        readableId,
      );
    }
    // The checked value itself is the message: no copy on the hot path.
    if (!hasId) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (rawId === null)
      return invalid(InvalidReason.NullIdRequest, "a request id must not be null");
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }

  if (hasResult && hasError) {
    return invalid(
      InvalidReason.ResultAndError,
      "a response cannot carry both a result and an error",
      readableId,
    );
  }
  if (!hasResult && !hasError) {
    return invalid(
      InvalidReason.NeitherResultNorError,
      "a message needs a method, a result or an error",
      readableId,
    );
  }
  if (!hasId) return invalid(InvalidReason.BadId, "a response needs an id");
  if (hasResult) {
    if (rawId === null)
      return invalid(InvalidReason.BadId, "a successful response cannot have a null id");
    return { kind: "result", message: value as unknown as JsonRpcSuccessResponse };
  }
  const error = value.error;
  if (
    !isPlainObject(error) ||
    typeof error.code !== "number" ||
    !Number.isInteger(error.code) ||
    typeof error.message !== "string"
  ) {
    return invalid(
      InvalidReason.BadErrorObject,
      "an error must be an object with an integer code and a string message",
      readableId,
    );
  }
  return { kind: "error", message: value as unknown as JsonRpcErrorResponse };
}
