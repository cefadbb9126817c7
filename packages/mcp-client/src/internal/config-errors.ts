import { isLocalError, LocalErrorCode } from "@awr/jsonrpc-core";
import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";

/** spawn errors that a retry cannot fix: the command or directory is missing or not allowed. */
const PERMANENT_SPAWN_ERRNOS: ReadonlySet<unknown> = new Set(["ENOENT", "EACCES", "ENOTDIR"]);

/**
 * Whether a failed connect attempt is a configuration error (a missing or non-executable
 * command, an invalid URL, an unset variable): retrying would fail the same way, so the server
 * goes to `failed` with this error instead of a retry loop.
 */
export function isConfigError(error: unknown): boolean {
  if (error instanceof MCPClientError) return error.code === MCPClientErrorCode.InvalidConfig;
  return (
    isLocalError(error) &&
    error.code === LocalErrorCode.SpawnFailed &&
    PERMANENT_SPAWN_ERRNOS.has(error.details["errno"])
  );
}
