import type { JsonRpcId } from "@awr/jsonrpc-core";

const JSONRPC_MEMBER = String.raw`(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?`;
const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":7,"result":…` (the order most JSON-RPC libraries write). */
const ID_FIRST = new RegExp(
  String.raw`^\s*\{\s*${JSONRPC_MEMBER}"id"\s*:\s*${ID_VALUE}\s*,\s*${JSONRPC_MEMBER}"(?:result|error)"\s*:`,
);
/** `{"result":…` or `{"jsonrpc":"2.0","error":…`: a response whose id comes last. */
const RESPONSE_FIRST = new RegExp(String.raw`^\s*\{\s*${JSONRPC_MEMBER}"(?:result|error)"\s*:`);
/**
 * `…,"id":7}` at the very end. In valid JSON the final `}` closes the outermost object, so the
 * member right before it belongs to that object: this is the response's own id.
 */
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * Best-effort reading of the id of a response frame that was too large to parse, from its first
 * and last bytes, so the request it answers can fail at once instead of timing out. Returns
 * undefined unless the frame plainly is a response and the id is unambiguous.
 */
export function sniffResponseId(head: Buffer, tail: Buffer): JsonRpcId | undefined {
  const start = head.toString("utf8");
  const idFirst = ID_FIRST.exec(start);
  if (idFirst?.[1] !== undefined) return toId(idFirst[1]);
  if (!RESPONSE_FIRST.test(start)) return undefined;
  const idLast = ID_LAST.exec(tail.toString("utf8"));
  return idLast?.[1] === undefined ? undefined : toId(idLast[1]);
}

function toId(token: string): JsonRpcId | undefined {
  try {
    const value: unknown = JSON.parse(token);
    if (typeof value === "string") return value;
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  } catch {
    // Not a readable id: the request will time out instead.
  }
  return undefined;
}
