import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** Why a parsed body is refused, and the id to answer with (null unless the body has a usable one). */
export interface InvalidMessage {
  readonly message: string;
  readonly id: string | number | null;
}

const MEMBERS = ["jsonrpc", "id", "method", "params", "result", "error"];

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number" && !Number.isInteger(value)) return "a fractional number";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const usableId = (id: unknown): string | number | null =>
  typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : null;

/**
 * Checks that a body which parsed as JSON is one JSON-RPC 2.0 message as MCP defines it, and when
 * it is not, says what is wrong (-32600 Invalid Request naming the problem). The HTTP service runs
 * it before the SDK's transport sees a body (that transport answers every such failure with -32700
 * "Parse error: Invalid JSON-RPC message", the code for text that is not JSON at all, and says
 * nothing about what is wrong); the stdio transport runs it on a line the SDK's schema refused. A
 * batch (a JSON array) is refused whole, as on stdio: JSON-RPC batching is not part of MCP since
 * protocol version 2025-06-18, and the service never offered it for older versions either.
 * Undefined: a valid message.
 */
export function invalidMessage(value: unknown): InvalidMessage | undefined {
  const refuse = (problem: string, id: unknown = null): InvalidMessage => ({
    message: `Invalid Request: ${problem}`,
    id: usableId(id),
  });
  if (Array.isArray(value)) {
    return refuse(
      value.length === 0
        ? "an empty batch."
        : "batches are not supported in this protocol version; send each JSON-RPC message in its own POST.",
    );
  }
  if (!isPlainObject(value)) {
    return refuse(`the body must be one JSON-RPC 2.0 message (a JSON object); got ${kind(value)}.`);
  }
  const id = value["id"];
  if (value["jsonrpc"] !== "2.0") {
    return refuse(
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
    return refuse(
      `${unknown} unknown member${unknown === 1 ? "" : "s"} (their names are not repeated); a message has only ${MEMBERS.join(", ")}.`,
      id,
    );
  }
  if ("id" in value && usableId(id) === null) {
    return refuse(
      id === null
        ? "id must be a string or an integer; MCP does not allow null."
        : `id must be a string or an integer; got ${kind(id)}.`,
    );
  }
  const isResponse = "result" in value || "error" in value;
  if ("method" in value) {
    if (typeof value["method"] !== "string") {
      return refuse(`method must be a string; got ${kind(value["method"])}.`, id);
    }
    if (isResponse) {
      return refuse(
        "a message has method (a request or notification) or result/error (a response), never both.",
        id,
      );
    }
    if ("params" in value && !isPlainObject(value["params"])) {
      return refuse(`params must be an object; got ${kind(value["params"])}.`, id);
    }
  } else if (!isResponse) {
    return refuse("method is missing; a request or notification names the method it calls.", id);
  }
  if (!JSONRPCMessageSchema.safeParse(value).success) {
    return refuse("not a JSON-RPC 2.0 request, notification or response.", id);
  }
  return undefined;
}
