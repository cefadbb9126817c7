import type { ServerMode } from "@awr/awr-ledger";
import type { CallLimiter } from "../internal/call-limiter.js";
import type { LedgerCaller, LedgerPort } from "../ledger-port.js";

/** A project a call may use: its open ledger and canonical root. */
export interface ResolvedProject {
  readonly ledger: LedgerPort;
  readonly root: string;
}

/**
 * Everything one MCP server instance needs to answer tool calls for one caller. The stdio
 * server has one fixed project; the HTTP service builds a host per request from the registry
 * client that authenticated it.
 */
export interface ToolHost {
  readonly mode: ServerMode;
  readonly caller: LedgerCaller;
  readonly limiter: CallLimiter;
  /**
   * Finds the project for a call and checks access and identity. `key` is the `project`
   * argument (undefined on stdio). Rejects with an AwrToolError (RuleViolation "project access
   * denied", NotFound for an uninitialised stdio project, and so on).
   */
  resolveProject(
    key: string | undefined,
    access: "read" | "write",
    options?: { signal?: AbortSignal },
  ): Promise<ResolvedProject>;
  /** awr_projects_list (shared HTTP only). */
  listProjects?(): Record<string, unknown>;
  /** awr_workstream (registry version 2 only). */
  workstream?(args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** Diagnostics for stderr; never stdout. */
  log?(line: string): void;
}
