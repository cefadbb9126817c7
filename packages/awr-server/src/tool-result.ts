import type { AwrErrorCode } from "@awr/awr-ledger";
import type { CallToolResult } from "./sdk/mcp-sdk.js";

/** The JSON every AWR tool error carries, in structuredContent and as text. */
export interface ToolErrorPayload {
  code: AwrErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * An error raised by awr-server itself (access denied, identity changed, workstreams enabled),
 * with the same codes as the ledger's. Like a LedgerError it becomes an `isError` result.
 */
export class AwrToolError extends Error {
  override readonly name = "AwrToolError";
  constructor(
    readonly code: AwrErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The payload of a domain error, or undefined for anything else (a bug, a crashed driver),
 * which the caller reports as a JSON-RPC internal error instead. LedgerError is recognised by
 * shape (name and code) so that two loaded copies of the ledger module still map correctly.
 */
export function toolErrorPayload(error: unknown): ToolErrorPayload | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name !== "LedgerError" && error.name !== "AwrToolError") return undefined;
  const { code, details } = error as Error & { code?: unknown; details?: unknown };
  if (typeof code !== "string") return undefined;
  const payload: ToolErrorPayload = { code: code as AwrErrorCode, message: error.message };
  if (details !== undefined && details !== null)
    payload.details = details as Record<string, unknown>;
  return payload;
}

/**
 * A successful result; `isError: false` is explicit, since hosts read it
 * (docs/compatibility/mcp-protocol.md).
 */
export function toolSuccess(value: unknown): CallToolResult {
  const structured = (value ?? {}) as Record<string, unknown>;
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: false,
  };
}

/** An `isError` result: the `{code, message, details?}` payload, or an error's partial result. */
export function toolFailure(payload: ToolErrorPayload | Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(payload) }],
    structuredContent: { ...payload },
    isError: true,
  };
}
