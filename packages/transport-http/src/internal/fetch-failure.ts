import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { describe } from "./event-stream.js";

/** A fetch that failed below HTTP (refused, reset, DNS): TRANSPORT_FAILED naming the call. */
export function fetchFailure(error: unknown, method: string, url: URL | string): TransportError {
  return new TransportError(
    LocalErrorCode.TransportFailed,
    `${method} ${String(url)} failed: ${describe(error)}`,
    { cause: error, details: { method, url: String(url) } },
  );
}
