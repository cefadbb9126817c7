import { LocalErrorCode } from "./error-codes.js";
import { LocalError } from "./local-errors.js";
import type { JsonRpcMessage } from "./types.js";

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * Serialises one message as a single line of JSON. The output never contains a raw line break:
 * JSON.stringify escapes \n and \r inside strings, and U+2028/U+2029 (which some line readers
 * treat as breaks) are escaped too, so newline-delimited framing is always safe.
 * Throws a LocalError (SERIALIZE_FAILED) for values JSON cannot carry (cycles, BigInt).
 */
export function serializeMessage(message: JsonRpcMessage): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    throw new LocalError(
      LocalErrorCode.SerializeFailed,
      `cannot serialise JSON-RPC message: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (text === undefined) {
    throw new LocalError(
      LocalErrorCode.SerializeFailed,
      "cannot serialise JSON-RPC message: not a JSON value",
    );
  }
  // Checking first is cheaper than a replace that finds nothing, the usual case.
  if (!text.includes("\u2028") && !text.includes("\u2029")) return text;
  return text.replace(LINE_SEPARATORS, (ch) => (ch === "\u2028" ? "\\u2028" : "\\u2029"));
}
