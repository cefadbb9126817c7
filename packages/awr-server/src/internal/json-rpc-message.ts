import {
  type InvalidMessage,
  InvalidReason,
  JSONRPC_VERSION,
  JsonRpcErrorCode,
  type JsonRpcErrorResponse,
  type JsonRpcId,
} from "@awr/jsonrpc-core";
import { isJsonRpcMessage } from "../sdk/mcp-sdk.js";
import { mentionsProto, shieldPrototypeKeys } from "./prototype-keys.js";

/** How a message reached the server: one per stdio line, or one per HTTP POST body. */
export type Framing = "line" | "body";

const BATCH_ADVICE: Record<Framing, string> = {
  line: "batches are not supported; send one message per line.",
  body: "batches are not supported in this protocol version; send each JSON-RPC message in its own POST.",
};

const MEMBERS = ["jsonrpc", "id", "method", "params", "result", "error"];

/** The text each wire code's message starts with, as JSON-RPC 2.0 names the codes. */
const CODE_NAMES: Record<InvalidMessage["errorCode"], string> = {
  [JsonRpcErrorCode.ParseError]: "Parse error",
  [JsonRpcErrorCode.InvalidRequest]: "Invalid Request",
};

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number" && !Number.isInteger(value)) return "a fractional number";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const usableId = (id: unknown): JsonRpcId | null =>
  typeof id === "string" || Number.isSafeInteger(id) ? (id as JsonRpcId) : null;

/** A refused message: -32600 Invalid Request unless told otherwise (only unreadable text is -32700). */
export function refusal(
  reason: InvalidReason,
  detail: string,
  id: unknown = null,
  errorCode: InvalidMessage["errorCode"] = reason === InvalidReason.NotJson
    ? JsonRpcErrorCode.ParseError
    : JsonRpcErrorCode.InvalidRequest,
): InvalidMessage {
  return { kind: "invalid", reason, detail, id: usableId(id), errorCode };
}

/** The error response that answers a refused message, under its id when it had a usable one. */
export function errorResponse(invalid: InvalidMessage): JsonRpcErrorResponse {
  return {
    jsonrpc: JSONRPC_VERSION,
    id: invalid.id,
    error: {
      code: invalid.errorCode,
      message: `${CODE_NAMES[invalid.errorCode]}: ${invalid.detail}`,
    },
  };
}

/**
 * Parses one framed message's text as JSON (-32700 when it is not), with every `__proto__` key
 * renamed so that it reaches the schema checks as data (see prototype-keys.ts).
 */
export function readJson(
  text: string,
  framing: Framing,
): { kind: "json"; value: unknown } | InvalidMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refusal(InvalidReason.NotJson, `the ${framing} is not JSON.`);
  }
  if (mentionsProto(text)) shieldPrototypeKeys(value);
  return { kind: "json", value };
}

/**
 * Checks that a value which parsed as JSON is one JSON-RPC 2.0 message as MCP defines it, and when
 * it is not, says what is wrong (-32600 Invalid Request naming the problem). The HTTP service runs
 * it before the SDK's transport sees a body (that transport answers every such failure with -32700
 * "Parse error: Invalid JSON-RPC message", the code for text that is not JSON at all, and says
 * nothing about what is wrong); the stdio transport runs it on a line the SDK's schema refused. A
 * batch (a JSON array) is refused whole: JSON-RPC batching is not part of MCP since protocol
 * version 2025-06-18, and the service never offered it for older versions either.
 * Undefined: a valid message.
 */
export function invalidMessage(value: unknown, framing: Framing): InvalidMessage | undefined {
  if (Array.isArray(value)) {
    return refusal(
      InvalidReason.Batch,
      value.length === 0 ? "an empty batch." : BATCH_ADVICE[framing],
    );
  }
  if (!isPlainObject(value)) {
    return refusal(
      InvalidReason.NotObject,
      `the body must be one JSON-RPC 2.0 message (a JSON object); got ${kind(value)}.`,
    );
  }
  const id = value["id"];
  if (value["jsonrpc"] !== "2.0") {
    return refusal(
      InvalidReason.BadVersion,
      "jsonrpc" in value
        ? `jsonrpc must be "2.0"; got ${JSON.stringify(value["jsonrpc"])?.slice(0, 40) ?? kind(value["jsonrpc"])}.`
        : 'jsonrpc must be "2.0"; the member is missing.',
      id,
    );
  }
  // Counted, never repeated (a made-up name can carry a secret); a `__proto__` member, renamed to
  // PROTO_KEY_ALIAS when the body was parsed, is counted like any other.
  const unknown = Object.keys(value).filter((member) => !MEMBERS.includes(member)).length;
  if (unknown > 0) {
    return refusal(
      InvalidReason.UnknownMember,
      `${unknown} unknown member${unknown === 1 ? "" : "s"} (their names are not repeated); a message has only ${MEMBERS.join(", ")}.`,
      id,
    );
  }
  if ("id" in value && usableId(id) === null) {
    return id === null
      ? refusal(
          InvalidReason.NullIdRequest,
          "id must be a string or an integer; MCP does not allow null.",
        )
      : refusal(InvalidReason.BadId, `id must be a string or an integer; got ${kind(id)}.`);
  }
  const isResponse = "result" in value || "error" in value;
  if ("method" in value) {
    if (typeof value["method"] !== "string") {
      return refusal(
        InvalidReason.BadMethod,
        `method must be a string; got ${kind(value["method"])}.`,
        id,
      );
    }
    if (isResponse) {
      return refusal(
        InvalidReason.MethodAndResponse,
        "a message has method (a request or notification) or result/error (a response), never both.",
        id,
      );
    }
    if ("params" in value && !isPlainObject(value["params"])) {
      return refusal(
        InvalidReason.BadParams,
        `params must be an object; got ${kind(value["params"])}.`,
        id,
      );
    }
  } else if (!isResponse) {
    return refusal(
      InvalidReason.NeitherResultNorError,
      "method is missing; a request or notification names the method it calls.",
      id,
    );
  }
  if (!isJsonRpcMessage(value)) {
    return refusal(
      InvalidReason.BadShape,
      "not a JSON-RPC 2.0 request, notification or response.",
      id,
    );
  }
  return undefined;
}
