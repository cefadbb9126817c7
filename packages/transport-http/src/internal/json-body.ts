import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";

/** The most of a malformed body kept in an error's `details.body`. */
const MALFORMED_BODY_LIMIT = 1_000;

/**
 * Parses a JSON response body. Malformed JSON fails with PROTOCOL_VIOLATION, the message
 * `${what}: <parser message>`, the parse error as `cause` and, when `details` are given, those
 * details plus the start of the body.
 */
export function parseJsonBody(
  text: string,
  what: string,
  details?: Record<string, unknown>,
): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TransportError(
      LocalErrorCode.ProtocolViolation,
      `${what}: ${(error as Error).message}`,
      details === undefined
        ? { cause: error }
        : { cause: error, details: { ...details, body: text.slice(0, MALFORMED_BODY_LIMIT) } },
    );
  }
}
