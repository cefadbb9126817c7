import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { createParser } from "eventsource-parser";
import { parseJsonBody } from "./internal/json-body.js";

/**
 * Parses a whole HTTP response body from an MCP server into the JSON values it carries: every
 * `data:` payload of an SSE body (message events only; empty priming events skipped; a last
 * event without its closing blank line still counts), or the value(s) of a plain JSON body.
 * Throws TransportError PROTOCOL_VIOLATION naming the first payload that is not JSON.
 */
export function parseSSE(text: string): unknown[] {
  if (typeof text !== "string")
    throw new TypeError("parseSSE expects the response body as a string");
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const value = parseJsonBody(trimmed, "the JSON body is malformed");
    return Array.isArray(value) ? value : [value];
  }
  const values: unknown[] = [];
  let failure: TransportError | undefined;
  let index = 0;
  const parser = createParser({
    onEvent(event) {
      index++;
      if (!event.data || (event.event !== undefined && event.event !== "message")) return;
      try {
        values.push(JSON.parse(event.data));
      } catch (error) {
        failure ??= new TransportError(
          LocalErrorCode.ProtocolViolation,
          `SSE event ${index} is not JSON: ${(error as Error).message}`,
          { cause: error, details: { event: index, data: event.data.slice(0, 1_000) } },
        );
      }
    },
  });
  parser.feed(text);
  parser.feed("\n\n");
  if (failure) throw failure;
  return values;
}
