import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";

/** The INVALID_ARGUMENT error a caller gets for a bad argument, before anything is sent. */
export function invalidArgument(message: string): MCPClientError {
  return new MCPClientError(MCPClientErrorCode.InvalidArgument, message);
}

/** Throws INVALID_ARGUMENT with `message` unless `value` is a non-empty string. */
export function requireNonEmptyString(value: unknown, message: string): void {
  if (typeof value !== "string" || value.length === 0) throw invalidArgument(message);
}
