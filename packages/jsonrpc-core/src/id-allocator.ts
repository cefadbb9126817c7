import { LocalErrorCode } from "./error-codes.js";
import { LocalError } from "./local-errors.js";
import type { JsonRpcId } from "./types.js";

export interface IdAllocator {
  /** The next id; never repeats for the allocator's lifetime. */
  next(): JsonRpcId;
}

export interface IdAllocatorOptions {
  /** "integer" (default): 1, 2, 3…; "string": `${prefix}1`, `${prefix}2`… for servers that want strings. */
  mode?: "integer" | "string";
  prefix?: string;
}

/**
 * A per-connection request id counter. Integers stay below 2^53 so every id survives a JSON
 * round trip exactly; running out throws instead of wrapping around and reusing an id.
 */
export function createIdAllocator(options: IdAllocatorOptions = {}): IdAllocator {
  const mode = options.mode ?? "integer";
  const prefix = options.prefix ?? "";
  let last = 0;
  return {
    next() {
      if (last >= Number.MAX_SAFE_INTEGER) {
        throw new LocalError(
          LocalErrorCode.IdsExhausted,
          "request ids exhausted on this connection: reconnect",
        );
      }
      last += 1;
      return mode === "integer" ? last : `${prefix}${last}`;
    },
  };
}
